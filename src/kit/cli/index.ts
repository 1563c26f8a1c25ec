/** contract §3, universal flags and argv: command words, strict flags, --params, --fields, and the teaching errors of each. */
export { parseFlags, splitCommandWords, type ArgvFlag, type RawFlags } from "./argv.ts";
export { checkedFlags, compiledChecks, pathOf, type Bounds, type Checks, type CompiledValidators } from "./checks.ts";
export { readCommandFlags, UNIVERSAL_ARGV } from "./command-flags.ts";
export { parseFields, project } from "./fields.ts";
export {
  contextUniversal,
  earlyUniversal,
  kebab,
  UNIVERSAL_FLAG_NAMES,
  UNIVERSAL_FLAGS,
  universalOf,
  type ContextUniversal,
  type EarlyUniversal,
  type FlagKind,
  type FlagSpec,
  type Universal,
  type UniversalFlag,
} from "./flags.ts";
export { resolveCommand } from "./resolve.ts";
export { editDistance, nearest } from "./suggest.ts";
export { convertFlags, flagError, type FlagIssue } from "./validate.ts";
