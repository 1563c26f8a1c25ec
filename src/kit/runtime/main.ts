/**
 * Entry points, for the real process, run once: `runIndexed` is what the build
 * generates for each tool; `runMain` runs a tool whose commands are all
 * loaded, compiling it in memory first (the kit's own test probe).
 */
import type { ListedTool, McpExtensionModule, ServedProfile } from "../bindings/index.ts";
import { compiledChecks, type CompiledValidators } from "../cli/index.ts";
import type { ToolIndex } from "../compile/index.ts";
import type { Tool } from "../declare/index.ts";
import { processIO } from "./io.ts";
import { runTool } from "./run-tool.ts";
import { commandIn, sourceOf } from "./source.ts";

/** A tool whose every command is already loaded. */
export async function runMain(tool: Tool): Promise<void> {
  // Loaded here only: a binary's entry is `runIndexed`, and carries no compiler.
  const { compileTool, DeclarationError } = await import("../compile/index.ts");
  const io = processIO();
  let compiled: ReturnType<typeof compileTool>;
  try {
    compiled = compileTool(tool);
  } catch (e) {
    // The author's mistake, said in one line on stderr: not a stack trace, not an answer to a caller.
    if (!(e instanceof DeclarationError)) throw e;
    io.writeStderr(`${e.message}\n`);
    process.exitCode = 1;
    return;
  }
  process.exitCode = await runTool(sourceOf(tool, compiled), io);
}

/** A command's module as the build generates it: the declaration, and its validators. */
type Loader = () => Promise<CompiledValidators & { declared: unknown }>;

/** A tool's MCP profiles as the build leaves them: its mcp.ts, and their tools as listed (JSON made from their zod). */
interface McpLoaders {
  readonly profiles: () => Promise<McpExtensionModule>;
  readonly listed: () => Promise<{ default: string }>;
}

async function servedProfiles(mcp: McpLoaders): Promise<Record<string, ServedProfile>> {
  const [{ profiles }, listed] = await Promise.all([mcp.profiles(), mcp.listed()]);
  const tools = JSON.parse(listed.default) as Record<string, ListedTool[]>;
  return Object.fromEntries(
    Object.entries(profiles).map(([name, profile]) => [name, { profile, tools: tools[name] ?? [] }]),
  );
}

/**
 * The entry the build generates for each tool: its index, one loader per
 * command (its declaration and the validators generated from its schemas),
 * and the describe document, all made from the same declaration at build time.
 */
export async function runIndexed(
  index: ToolIndex,
  loaders: Readonly<Record<string, Loader>>,
  describe: () => Promise<{ default: string }>,
  documents: Readonly<Record<string, () => Promise<{ default: string }>>> = {},
  mcp?: McpLoaders,
): Promise<void> {
  process.exitCode = await runTool(
    {
      index,
      load: async (head) => {
        const loaded = await loaders[head.name]!();
        return { command: commandIn(loaded.declared, head), checks: compiledChecks(loaded, head.flags) };
      },
      describe: async () => (await describe()).default,
      document: async (file) => (documents[file] ? (await documents[file]()).default : null),
      ...(mcp ? { mcpProfiles: () => servedProfiles(mcp) } : {}),
    },
    processIO(),
  );
}
