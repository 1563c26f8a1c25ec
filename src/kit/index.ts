/**
 * The kit's public surface: what every tool may use. Tools that plan and
 * apply add `writes.ts`; a command that calls a model adds `llm.ts`. They
 * are apart so each command loads only what it uses. Everything else is
 * internal.
 */
export { defineCommand, defineTool, type CommandSpec, type EnvVar, type Tool, type ToolSpec } from "./define.ts";
export type { CommandContext } from "./context.ts";
export { ERROR_CODES, KitError, type ErrorCode } from "./errors.ts";
export type { Artifact, RunDir } from "./run-dir.ts";
export { resolveWithin } from "./paths.ts";
export { sha256 } from "./hash.ts";
export { editDistance, nearest } from "./suggest.ts";
export { runMain } from "./main.ts";
export { describe } from "./annotate.ts";
