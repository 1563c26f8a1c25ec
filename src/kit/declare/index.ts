/** contract §1, command shape and canonical verbs: a tool and its commands as declared data, checked once. */
export {
  defineCommand,
  defineTool,
  type Command,
  type CommandSpec,
  type Example,
  type FlagsSchema,
  type ResultSchema,
  type Tool,
  type ToolSpec,
} from "./define.ts";
export { describe } from "./annotate.ts";
export { FORBIDDEN_SYNONYMS, isTier1Verb, type Tier1Verb } from "./verbs.ts";
