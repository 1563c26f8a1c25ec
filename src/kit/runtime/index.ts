/** contract §0 and §5, one invocation: the stages from argv to one envelope and its exit code, over a KitIO. */
export type { CommandContext } from "./context.ts";
export { processIO, type KitIO, type Signal } from "./io.ts";
export { runIndexed, runMain } from "./main.ts";
export { runTool } from "./run-tool.ts";
export { kitVersion, versionLine } from "./version.ts";
export { fleetTool, fleetTools, markMulticall, selfArgv } from "./multicall.ts";
export { commandIn, sourceOf, type ToolSource } from "./source.ts";
