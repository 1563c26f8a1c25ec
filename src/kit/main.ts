/** The entry point of a compiled tool: the real process, run once. */
import type { Tool } from "./define.ts";
import { processIO } from "./io.ts";
import { runTool } from "./runtime.ts";

export async function runMain(tool: Tool): Promise<void> {
  process.exitCode = await runTool(tool, processIO());
}
