/** The entry point of a compiled tool: the real process, run once. */
import type { Tool } from "./define.ts";
import type { DescribeDoc } from "./describe-doc.ts";
import { processIO } from "./io.ts";
import { runTool } from "./runtime.ts";
import { commandIn, sourceOf, type ToolIndex } from "./tool-index.ts";

/** A tool whose every command is already loaded. */
export async function runMain(tool: Tool): Promise<void> {
  process.exitCode = await runTool(sourceOf(tool), processIO());
}

type Loader = () => Promise<{ default: unknown }>;

/**
 * The entry the build generates for each tool: its index, one loader per
 * command (a module that declares it), and the describe document, all made
 * from the same declaration at build time.
 */
export async function runIndexed(index: ToolIndex, loaders: Readonly<Record<string, Loader>>, describe: () => Promise<{ default: unknown }>): Promise<void> {
  process.exitCode = await runTool(
    {
      index,
      load: async (head) => commandIn((await loaders[head.name]!()).default, head),
      describe: async () => (await describe()).default as DescribeDoc,
    },
    processIO(),
  );
}
