/**
 * Side effects judged from outside (contract §1, §3): every read command, and
 * every write command with --dry-run, runs in a workspace verify watches (its
 * own working folder and TMPDIR), from the tool's documented examples; a
 * plan the example needs is made first by the tool's own `plan` examples. A
 * file that appears, changes or goes in the folder is a side effect (TMPDIR
 * and the run dir are the tool's scratch; HOME is identity.home's, kept empty).
 * Where the command declares an upstream, it points at a listener verify runs
 * (upstream.ts), and a request that changes something is a side effect too.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { inspectEnvelope } from "../base/inspect.ts";
import type { Subject } from "../base/subject.ts";
import { Sandbox, type RunResult } from "../base/sandbox.ts";
import type { CommandDoc, DescribeDoc } from "../base/schemas.ts";
import {
  changesUnderDryRun,
  changesUnderRead,
  describeHeard,
  type Heard,
  Listener,
  upstreamsOf,
} from "../base/upstream.ts";
import { requiredArgv, words } from "./values.ts";

export interface Workspace {
  root: string;
  cwd: string;
  env: Record<string, string>;
}

export function workspace(s: Subject, name: string): Workspace {
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

/** The paths apply's examples take their plan from (`--plan X`), resolved in the workspace: where a plan may write. */
const planPaths = (doc: DescribeDoc, w: Workspace): string[] =>
  doc.commands
    .filter((c) => c.verb === "apply")
    .flatMap((c) => (c.examples ?? []).map((e) => e.argv))
    .flatMap((argv) =>
      argv.flatMap((a, i) => (a === "--plan" ? [argv[i + 1]] : a.startsWith("--plan=") ? [a.slice(7)] : [])),
    )
    .filter((p): p is string => Boolean(p))
    .map((p) => resolve(w.cwd, p));

const isJson = (path: string): boolean => {
  try {
    return JSON.parse(readFileSync(path, "utf8")) !== null;
  } catch {
    return false;
  }
};

/**
 * contract §8: plan writes a changeset and changes nothing. Run for real, it
 * may write its plan (the file apply's examples take, or, where none names
 * one, a JSON file) and its scratch (TMPDIR, its run dir); a file of the
 * tool's own store written or changed is a mutation before the gate.
 */
function judgePlanWrites(s: Subject, doc: DescribeDoc, w: Workspace, r: RunResult, before: Map<string, string>) {
  const skip = scratch(w, r.run.argv);
  const after = Sandbox.snapshot(w.root, skip);
  const plans = planPaths(doc, w);
  const stray = [...new Set([...before.keys(), ...after.keys()])]
    .filter((p) => before.get(p) !== after.get(p))
    .filter((p) => !(plans.length ? plans.includes(p) : after.has(p) && !before.has(p) && isJson(p)));
  s.findings.expect(
    "fs.plan",
    stray.length === 0,
    `'${r.run.argv.slice(0, 2).join(" ")}' (run for real) changed ${stray.map((p) => p.replace(w.root, "[WORKSPACE]")).join(", ")}: a plan writes its changeset${plans.length ? ` (${plans.map((p) => p.replace(w.root, "[WORKSPACE]")).join(", ")}, where apply's examples take it)` : " (a JSON file)"} and changes nothing else`,
    r,
  );
}

/** The tool's own plan examples, run for real in the workspace: the inputs a later example names. */
export async function prepare(
  s: Subject,
  doc: DescribeDoc,
  w: Workspace,
  c: CommandDoc,
  argv: readonly string[],
): Promise<boolean> {
  if (c.verb !== "apply" && !argv.some((a) => a === "--plan" || a.startsWith("--plan="))) return false;
  const planners = doc.commands.filter((x) => x.verb === "plan" && x !== c && x.examples?.length);
  for (const p of planners)
    for (const e of p.examples!) {
      const runArgv = [...words(p), ...e.argv, "--no-input"];
      const before = Sandbox.snapshot(w.root, scratch(w, runArgv));
      const r = await s.sandbox.run({
        label: `${p.name}: example (inputs for '${c.name}')`,
        argv: runArgv,
        cwd: w.cwd,
        env: w.env,
      });
      if (!r.timedOut && inspectEnvelope(s, r, p)?.ok) judgePlanWrites(s, doc, w, r, before);
    }
  return planners.length > 0;
}

/**
 * contract §3: behind a valid plan (made by the tool's own plan examples),
 * apply run for real under --no-input never prompts: no read of stdin, no
 * wait on it (noninteractive.no-hang, judged on every run). Its effects stay
 * in the workspace, and its upstream is verify's listener.
 */
async function applyForReal(s: Subject, c: CommandDoc, w: Workspace, argv: readonly string[]): Promise<void> {
  const r = await s.sandbox.run({
    label: `${c.name}: for real, behind a plan its own plan example made, under --no-input`,
    argv: [...words(c), ...argv, "--no-input"],
    cwd: w.cwd,
    env: w.env,
  });
  inspectEnvelope(s, r, c);
}

/** Requests to the command's declared upstream: none that changes anything, for a dry run or a read. */
function judgeNetwork(s: Subject, c: CommandDoc, heard: readonly Heard[], r: RunResult): void {
  const dryRun = c.rw === "write";
  const changing = heard.filter(dryRun ? changesUnderDryRun : changesUnderRead);
  const what = changing.map(describeHeard).join("; ");
  if (dryRun)
    s.findings.expect(
      "net.dry-run",
      changing.length === 0,
      `'${c.name} --dry-run' sent ${what}: a dry run does everything except the side effect`,
      r,
    );
  else s.findings.expect("net.read-only", changing.length === 0, `the read command '${c.name}' sent ${what}`, r);
}

async function probe(s: Subject, doc: DescribeDoc, c: CommandDoc, argv: readonly string[], n: number): Promise<void> {
  const w = workspace(s, `${c.name}-${n}`);
  const upstreams = upstreamsOf(doc, c);
  const listener = upstreams.length ? new Listener(upstreams) : null;
  const skip = scratch(w, argv);
  let before: Map<string, string>;
  let after: Map<string, string>;
  let heard: Heard[];
  let r: RunResult;
  try {
    Object.assign(w.env, listener?.env);
    const planned = await prepare(s, doc, w, c, argv);
    listener?.reset();
    before = Sandbox.snapshot(w.root, skip);
    r = await s.sandbox.run({
      label: `${c.name}: side effects of ${argv.join(" ") || "(required flags)"}${c.rw === "write" ? " --dry-run" : ""}`,
      argv: [...words(c), ...argv, ...(c.rw === "write" ? ["--dry-run"] : []), "--no-input"],
      cwd: w.cwd,
      env: w.env,
    });
    heard = [...(listener?.heard ?? [])];
    after = Sandbox.snapshot(w.root, skip);
    if (planned && c.verb === "apply" && !r.timedOut) await applyForReal(s, c, w, argv);
  } finally {
    await listener?.close();
  }
  inspectEnvelope(s, r, c);
  if (r.timedOut) return;
  if (listener) judgeNetwork(s, c, heard, r);
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
  const declaring = doc.commands.filter((c) => upstreamsOf(doc, c).length > 0);
  const none = (rw: "read" | "write") =>
    !doc.commands.some((c) => c.rw === rw)
      ? `the tool has no ${rw} command`
      : `no ${rw} command declares an upstream (an environment variable in --describe named …_URL, …_URI or …_ENDPOINT with an http(s) value, or marked "upstream": true)`;
  if (!declaring.some((c) => c.rw === "write")) s.findings.skip("net.dry-run", none("write"));
  if (!declaring.some((c) => c.rw === "read")) s.findings.skip("net.read-only", none("read"));
  s.findings.skip(
    "fs.plan",
    doc.commands.some((c) => c.rw === "write")
      ? "no plan example ran before an apply: the tool documents no plan and apply examples"
      : "the tool has no write command",
  );
}
