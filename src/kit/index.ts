/**
 * The kit's public surface: what every tool may use. Tools that plan and
 * apply add `writes.ts`; a command that calls a model adds `llm.ts`. They
 * are apart so each command loads only what it uses. Everything else is
 * internal.
 */
export {
  defineCommand,
  defineTool,
  type CommandSpec,
  type EnvVar,
  type Lifetime,
  type SecretOut,
  type Tool,
  type ToolSpec,
} from "./declare/define.ts";
export type { Credential } from "./identity/credential.ts";
export type { CommandContext } from "./runtime/context.ts";
export { ERROR_CODES, KitError, type ErrorCode } from "./output/errors.ts";
export type { Artifact, RunDir } from "./pipeline/run-dir.ts";
export type { CutPage } from "./lists/paginate.ts";
export { resolvePath, resolveWithin } from "./pipeline/paths.ts";
export { confinedPath } from "./pipeline/confine.ts";
export { sweepTemps } from "./pipeline/atomic.ts";
export { sha256 } from "./pipeline/hash.ts";
export { editDistance, nearest } from "./cli/suggest.ts";
export { runMain } from "./runtime/main.ts";
export { describe } from "./declare/annotate.ts";
export { DeclarationError } from "./declare/mistakes.ts";
