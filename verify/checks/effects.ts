/**
 * Side effects judged from outside (contract §1, §3): every read command, and
 * every write command with --dry-run, runs in a workspace verify watches (its
 * own working folder and TMPDIR), from the tool's documented examples; a
 * plan the example needs is made first by the tool's own `plan` examples. A
 * file that appears, changes or goes in the folder is a side effect (TMPDIR
 * and the run dir are the tool's scratch; HOME is identity.home's, kept empty).
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { inspectEnvelope, type Subject } from "../inspect.ts";
import { Sandbox } from "../sandbox.ts";
import type { CommandDoc, DescribeDoc } from "../schemas.ts";
import { requiredArgv, words } from "./values.ts";

interface Workspace {
  root: string;
  cwd: string;
  env: Record<string, string>;
}

function workspace(s: Subject, name: string): Workspace {
  const root = s.sandbox.dir(`effects-${name.replace(/ /g, "-")}`);
  const [cwd, tmp] = ["cwd", "tmp"].map((d) => join(root, d));
  for (const d of [cwd!, tmp!]) mkdirSync(d);
  // HOME stays the sandbox's: identity.home holds it empty after every probe, so a write there is reported once, there.
  return { root, cwd: cwd!, env: { TMPDIR: tmp! } };
}

/** The value of `--run-dir` in argv, resolved from the workspace's folder. */
const runDirOf = (w: Workspace, argv: readonly string[]): string | null => {
  const i = argv.findIndex((a) => a === "--run-dir" || a.startsWith("--run-dir="));
  if (i === -1) return null;
  const v = argv[i]!.includes("=") ? argv[i]!.slice("--run-dir=".length) : argv[i + 1];
  return v ? resolve(w.cwd, v) : null;
};

/** Not watched: TMPDIR and the run dir, the tool's scratch (contract §7). */
const scratch = (w: Workspace, argv: readonly string[]) => {
  const runDir = runDirOf(w, argv);
  return (p: string) =>
    p.startsWith(join(w.root, "tmp")) || (runDir !== null && (p === runDir || p.startsWith(`${runDir}/`)));
};

/** The tool's own plan examples, run for real in the workspace: the inputs a later example names. */
async function prepare(
  s: Subject,
  doc: DescribeDoc,
  w: Workspace,
  c: CommandDoc,
  argv: readonly string[],
): Promise<void> {
  if (c.verb !== "apply" && !argv.some((a) => a === "--plan" || a.startsWith("--plan="))) return;
  const planners = doc.commands.filter((x) => x.verb === "plan" && x !== c && x.examples?.length);
  for (const p of planners)
    for (const e of p.examples!)
      await s.sandbox.run({
        label: `${p.name}: example (inputs for '${c.name}')`,
        argv: [...words(p), ...e.argv, "--no-input"],
        cwd: w.cwd,
        env: w.env,
      });
}

async function probe(s: Subject, doc: DescribeDoc, c: CommandDoc, argv: readonly string[], n: number): Promise<void> {
  const w = workspace(s, `${c.name}-${n}`);
  await prepare(s, doc, w, c, argv);
  const skip = scratch(w, argv);
  const before = Sandbox.snapshot(w.root, skip);
  const dryRun = c.rw === "write" ? ["--dry-run"] : [];
  const r = await s.sandbox.run({
    label: `${c.name}: side effects of ${argv.join(" ") || "(required flags)"}${dryRun.length ? " --dry-run" : ""}`,
    argv: [...words(c), ...argv, ...dryRun, "--no-input"],
    cwd: w.cwd,
    env: w.env,
  });
  inspectEnvelope(s, r, c);
  if (r.timedOut) return;
  const after = Sandbox.snapshot(w.root, skip);
  const changed = [...new Set([...before.keys(), ...after.keys()])]
    .filter((p) => before.get(p) !== after.get(p))
    .map((p) => p.replace(w.root, "[WORKSPACE]"));
  const what = `changed ${changed.join(", ")}`;
  if (c.rw === "write")
    s.findings.expect(
      "fs.dry-run",
      changed.length === 0,
      `'${c.name} --dry-run' ${what}: a dry run does everything except the side effect`,
      r,
    );
  else s.findings.expect("fs.read-only", changed.length === 0, `the read command '${c.name}' ${what}`, r);
}

export async function checkEffects(s: Subject, doc: DescribeDoc): Promise<void> {
  await Promise.all(
    doc.commands.map(async (c) => {
      const examples = c.examples?.length ? c.examples.map((e) => e.argv) : [requiredArgv(c)];
      await Promise.all(examples.map((argv, i) => probe(s, doc, c, argv, i + 1)));
    }),
  );
}
