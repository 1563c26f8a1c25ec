/**
 * Running verify over the nonconforming corpus: one verify per batch of
 * tools, its report per tool; golden cases recorded from a tool itself (its
 * own CI's first run) by replaying cases stripped of their expectations.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, root, run } from "../helpers/bin.ts";

export interface ToolReport {
  binary: string;
  ok: boolean;
  duration_ms: number;
  checks: { id: string; status: string; note: string | null; evidence: { what: string; argv?: string[] }[] }[];
}

export async function verify(args: string[], binaries: string[]): Promise<{ code: number; tools: ToolReport[] }> {
  // verify's own time limit a run (10 s): a shorter one killed tools that had answered but not yet exited when
  // the machine was busy, the corpus's groups running side by side.
  const r = await run(binary("verify"), ["--json", ...args, ...binaries], { timeoutMs: 600_000, cwd: root });
  const body = r.json.data ?? r.json.error.detail;
  return { code: r.code, tools: body.tools };
}

/** The failing checks' ids; a check failed beyond the expected one is printed with its evidence, to say why. */
export function failing(report: ToolReport, expected: readonly string[]): string[] {
  const failed = report.checks.filter((c) => c.status === "fail");
  for (const c of failed.filter((x) => !expected.includes(x.id)))
    console.log(`${report.binary}: ${c.id} failed too: ${JSON.stringify(c.evidence.slice(0, 2))}`);
  return failed.map((c) => c.id);
}

/**
 * A golden folder for `tool` holding the cases of `from` without their
 * expectations: verify records each from the tool it runs (as it does outside
 * CI), then holds the rest of the run to them.
 */
export function unrecorded(from: string, tool: string): string {
  const dir = mkdtempSync(join(tmpdir(), `golden-${tool}-`));
  mkdirSync(join(dir, tool));
  for (const file of readdirSync(from).filter((f) => f.endsWith(".json"))) {
    const { expect: _, ...spec } = JSON.parse(readFileSync(join(from, file), "utf8"));
    writeFileSync(join(dir, tool, file), JSON.stringify(spec, null, 2));
  }
  return dir;
}

/** Runs `jobs` at most `width` at a time. */
export async function inTurn<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const out: T[] = [];
  for (let at = 0; at < jobs.length; at += width)
    out.push(...(await Promise.all(jobs.slice(at, at + width).map((j) => j()))));
  return out;
}
