/**
 * The µVM image ships one binary for the whole fleet (`fleet`), started under
 * each tool's name. Whatever starts a fleet tool from inside one (the gate's
 * read-back, the scope split's respawn, a job's steps) asks here how: through
 * the multicall binary this process is, or the sibling binary beside it; and
 * which tools the fleet has: those the multicall binary carries (a link each
 * in the image's bin), or those of the fleet's tool list (tools.json) beside
 * the binary, as the build lays them out.
 */
import { fs } from "../base/index.ts";

const MARK = Symbol.for("agent-cli-kit.multicall");
const FLEET = Symbol.for("agent-cli-kit.multicall.fleet");

const slot = globalThis as Record<symbol, unknown>;
const running = (): string | undefined => slot[MARK] as string | undefined;

/** Called by the multicall entry before it hands over to the tool it runs: which tool, and every tool it carries. */
export function markMulticall(tool: string, fleet: readonly string[] = []): void {
  slot[MARK] = tool;
  slot[FLEET] = fleet;
}

const folderOf = (execPath: string): string => execPath.slice(0, execPath.lastIndexOf("/"));

/** The argv that starts fleet tool `name`: `[fleet, name]` inside the multicall, else the sibling binary. */
export function fleetTool(name: string, execPath: string = process.execPath): string[] {
  if (running()) return [execPath, name];
  return [`${folderOf(execPath)}/${name}`];
}

/** The argv that starts this very tool again. */
export function selfArgv(execPath: string = process.execPath): string[] {
  const tool = running();
  return tool ? [execPath, tool] : [execPath];
}

/** The tools in the fleet's tool list at `file` (tools.json: each declared tool's command starts with its tool); none when absent. */
function listedTools(file: string): string[] {
  try {
    const list = JSON.parse(fs().readFileSync(file, "utf8")) as { tools?: Record<string, { command?: unknown }> };
    const names = Object.values(list.tools ?? {}).map((t) => (Array.isArray(t.command) ? t.command[0] : undefined));
    return [...new Set(names.filter((n): n is string => typeof n === "string"))];
  } catch {
    return [];
  }
}

/**
 * The fleet's other tools, this one aside, sorted: those the multicall binary
 * carries when this process is it, else those the tool list beside this
 * binary names. A tool added to the fleet's build is here, with no list to edit.
 */
export function fleetTools(execPath: string = process.execPath): string[] {
  const self = running() ?? execPath.slice(execPath.lastIndexOf("/") + 1);
  const all = running()
    ? ((slot[FLEET] as readonly string[] | undefined) ?? [])
    : listedTools(`${folderOf(execPath)}/tools.json`);
  return all.filter((t) => t !== self).sort();
}
