/** contract §1, command shape: a tool and its commands as declared data, checked once, and the context a command runs with. */
export { describe } from "./annotate.ts";
export type { CommandContext } from "./context.ts";
export {
  defineCommand,
  defineTool,
  type Command,
  type CommandSpec,
  type Example,
  type FlagsSchema,
  type LaunchedCommand,
  type ResultSchema,
  type SecretOut,
  type WritesDecl,
  type Tool,
  type ToolSpec,
} from "./define.ts";
export { DeclarationError, placeText } from "./mistakes.ts";
