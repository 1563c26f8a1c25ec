/**
 * The kit's public surface: what every tool may use. Tools that plan and
 * apply add `writes.ts`; a command that calls a model adds `llm.ts`. They
 * are apart so each command loads only what it uses. Everything else is
 * internal.
 */
export {
  type CommandContext,
  type CommandSpec,
  DeclarationError,
  defineCommand,
  defineTool,
  describe,
  type SecretOut,
  type Tool,
  type ToolSpec,
} from "./declare/index.ts";
export type { Credential, EnvVar, Lifetime } from "./identity/index.ts";
export { ERROR_CODES, KitError, type ErrorCode } from "./output/index.ts";
export {
  type Artifact,
  confinedPath,
  type RunDir,
  resolvePath,
  resolveWithin,
  sha256,
  sweepTemps,
} from "./pipeline/index.ts";
export type { CutPage } from "./lists/index.ts";
export { editDistance, nearest } from "./cli/index.ts";
export { runMain } from "./runtime/index.ts";
