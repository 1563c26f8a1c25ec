/** What `<tool> --version` says: the tool's version, the kit's and the contract's (tool-level.ts prints it). */

/** The kit's own version. Read only when asked: the package's own file, bundled into a compiled tool. */
export const kitVersion = async (): Promise<string> =>
  (await import("../../../package.json", { with: { type: "json" } })).default.version;

/** What `<tool> --version` prints for a person: one line. */
export const versionLine = (tool: { name: string; version: string; contractVersion: number }, kit: string): string =>
  `${tool.name} ${tool.version} (agent-cli-kit ${kit}, contract ${tool.contractVersion})\n`;
