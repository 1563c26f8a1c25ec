/**
 * The build of one tool folder into one fast-start binary: the compiled entry
 * (index, describe, SKILL.md and validators made at build time, spec.yaml
 * carried), compiled by Bun for the host or a named target. The fleet's own
 * build and `agent-cli-kit build` in a tool's repository both come here.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compile } from "./compile.ts";
import { compileFolder, writeEntry } from "./entry.ts";

export { BuildError } from "./build-error.ts";
export { bundle, compile, type CompileOptions } from "./compile.ts";
export { compileFolder, loadTool, writeEntry } from "./entry.ts";

export interface Built {
  readonly tool: string;
  readonly binary: string;
  readonly target: string;
  readonly bytes: number;
  readonly skill: string;
}

/** Builds `toolDir` into `<outDir>/<name>` (or `<name>-<target>`), and writes its SKILL.md beside its tool.ts. */
export async function buildTool(toolDir: string, outDir: string, opts: { target?: string } = {}): Promise<Built> {
  const folder = await compileFolder(toolDir);
  const { tool, compiled } = folder;
  const entry = await writeEntry(toolDir, join(outDir, ".build", tool.name), folder);
  const named = opts.target ? `${tool.name}-${opts.target.replace(/^bun-/, "")}` : tool.name;
  // Bun names a Windows binary .exe whatever it is asked for.
  const binary = join(outDir, opts.target?.startsWith("bun-windows") ? `${named}.exe` : named);
  mkdirSync(outDir, { recursive: true });
  await compile(entry, binary, { zodStandIn: true, ...(opts.target ? { target: opts.target } : {}) });
  const skill = join(toolDir, "SKILL.md");
  writeFileSync(skill, compiled.skill);
  return {
    tool: tool.name,
    binary,
    target: opts.target ?? `bun-${process.platform}-${process.arch}`,
    bytes: Bun.file(binary).size,
    skill,
  };
}
