/** The kit's public surface: what a tool may use. Everything else is internal. */
export { defineCommand, defineTool, type CommandSpec, type EnvVar, type Tool, type ToolSpec } from "./define.ts";
export type { CommandContext } from "./context.ts";
export { ERROR_CODES, KitError, type ErrorCode } from "./errors.ts";
export { resolveWithin, sha256, type Artifact, type RunDir } from "./run-dir.ts";
export { editDistance, nearest } from "./suggest.ts";
export { runMain } from "./main.ts";
export { describe } from "./annotate.ts";
export { mutationCommands, planResult, ttlFlag, writePlan, type ActionSpec, type ExecContext, type Mutations, type TargetState } from "./mutations.ts";
export type { ItemInput, Plan, PlanItem, Precondition } from "./plan.ts";
export { chatCompletion, type ChatRequest, type ChatResult } from "./llm.ts";
