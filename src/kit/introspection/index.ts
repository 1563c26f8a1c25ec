/** contract §9, three-layer introspection: --describe, --help and SKILL.md rendered from one document. */
export { commandErrors, describeTool, type CommandSchemas } from "./describe.ts";
export {
  DOCUMENT_FLAGS,
  KIT_EXTENSIONS,
  narrowDoc,
  type CommandDoc,
  type DescribeDoc,
  type DocumentFlag,
  type FlagDoc,
  type JsonSchema,
} from "./describe-doc.ts";
export { commandHelp, toolHelp } from "./help.ts";
export { shellLine, shellWord } from "./shell.ts";
export { fleetSkill, toolSkill } from "./skill.ts";
