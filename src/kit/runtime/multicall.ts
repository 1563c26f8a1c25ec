/**
 * The µVM image ships one binary for the whole fleet (`fleet`), started under
 * each tool's name. Whatever starts a fleet tool from inside one (the gate's
 * read-back, the scope split's respawn) asks here how: through the multicall
 * binary this process is, or the sibling binary beside it.
 */
const MARK = Symbol.for("agent-cli-kit.multicall");

const running = (): string | undefined => (globalThis as Record<symbol, string | undefined>)[MARK];

/** Called by the multicall entry before it hands over to the tool it runs. */
export function markMulticall(tool: string): void {
  (globalThis as Record<symbol, unknown>)[MARK] = tool;
}

/** The argv that starts fleet tool `name`: `[fleet, name]` inside the multicall, else the sibling binary. */
export function fleetTool(name: string, execPath: string = process.execPath): string[] {
  if (running()) return [execPath, name];
  return [`${execPath.slice(0, execPath.lastIndexOf("/"))}/${name}`];
}

/** The argv that starts this very tool again. */
export function selfArgv(execPath: string = process.execPath): string[] {
  const tool = running();
  return tool ? [execPath, tool] : [execPath];
}
