/**
 * Wall time of `dist/verify` over the whole fleet (also as CI runs it: --strict --fuzz 15), over each tool
 * alone (no --fuzz) and over the outside Python tool (`test/fixtures/outside-tool/shelf`, from its own folder
 * with its golden cases, as its CI runs it), medians; beside it, the same runs of the verifier as it is at a base
 * revision (BENCH_BASE, default `main`), compiled in this run from that revision's verify/ sources, rounds
 * interleaved, so a change to the verifier shows its cost on the same machine at the same time. The machine's
 * load (`uptime`) is printed before and after: on a shared machine it moves every figure.
 */
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTerminal, ptyPython } from "../../verify/base/terminal.ts";
import { interpreterFirstOnPath } from "../../test/helpers/python.ts";
import { toolNames } from "../build.ts";
import { compile } from "../compile.ts";
import { type Case, interleave, median, roundsArg, runOnce, type Sample } from "./measure.ts";

const root = join(import.meta.dir, "..", "..");

/** verify at `ref`, compiled from that revision's own verify/ folder, laid out inside the repository so its imports resolve. */
async function verifyAt(ref: string): Promise<{ binary: string; commit: string } | null> {
  const commit = Bun.spawnSync(["git", "rev-parse", "--short", ref], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (commit.exitCode !== 0) return null;
  const sha = commit.stdout.toString().trim();
  const dir = join(root, "dist", ".bench", `verify-${sha}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = Bun.spawnSync(["sh", "-c", `git archive '${ref}' verify | tar -x -C '${dir}'`], { cwd: root });
  if (archive.exitCode !== 0) return null;
  const binary = join(dir, "verify-bin");
  await compile(join(dir, "verify", "main.ts"), binary);
  return { binary, commit: sha };
}

function casesFor(verify: string, label: string): Case[] {
  const tools = toolNames();
  const golden = ["--golden", join(root, "test", "golden")];
  const all = tools.map((t) => join(root, "dist", t));
  return [
    { name: `${label} fleet (${tools.join(", ")})`, argv: [verify, ...golden, ...all] },
    // As the fleet's CI runs it: every kit extension demanded, 15 fuzzed calls per command (a fixed seed).
    {
      name: `${label} fleet --strict --fuzz 15`,
      argv: [verify, "--strict", "--fuzz", "15", "--seed", "1", ...golden, ...all],
    },
    ...tools.map((t) => ({ name: `${label} ${t}`, argv: [verify, ...golden, join(root, "dist", t)] })),
    // An outside tool in Python (standard library only), judged from its own folder with its golden cases.
    { name: `${label} outside Python tool (shelf)`, argv: [verify, "./shelf"], cwd: outside },
  ];
}

const outside = join(root, "test", "fixtures", "outside-tool");

/** The machine's load averages, as `uptime` prints them. */
const load = (): string =>
  Bun.spawnSync(["uptime"], { stdout: "pipe" })
    .stdout.toString()
    .replace(/^.*load average:\s*/s, "")
    .trim();

export async function benchVerify(rounds: number): Promise<void> {
  const ref = process.env.BENCH_BASE ?? "main";
  const base = await verifyAt(ref);
  const head = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: root, stdout: "pipe" })
    .stdout.toString()
    .trim();
  // The working tree's verify, compiled once here: a rebuild of dist/ while the rounds run does not change what is measured.
  const current = join(root, "dist", ".bench", "verify-now");
  mkdirSync(join(root, "dist", ".bench"), { recursive: true });
  await compile(join(root, "verify", "main.ts"), current);
  const now = casesFor(current, "now ");
  const before = base ? casesFor(base.binary, "base") : [];
  // The tool under test is the Python script, not a version manager's shim in front of python3.
  interpreterFirstOnPath(tmpdir());
  const cases = [...before, ...now];
  const loadBefore = load();
  const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
  for (let i = 0; i < rounds; i++)
    for (const c of cases) {
      const s = await runOnce(c);
      // The base verifier may judge today's tools by older rules: its verdict is printed, its time still counts.
      if (s.exitCode !== 0 && now.includes(c))
        throw new Error(`${c.argv.join(" ")} exited ${s.exitCode}: the fleet does not conform`);
      samples.get(c.name)!.push(s);
    }
  const wall = (c: Case) => median(samples.get(c.name)!.map((s) => s.wallMs));
  const cpu = (c: Case) => median(samples.get(c.name)!.map((s) => s.cpuMs));
  const seconds = (ms: number | null) => (ms === null ? "—" : `${(ms / 1000).toFixed(2)} s`);
  const ratio = (was: number | null, is: number) => (was === null ? "—" : `${(was / is).toFixed(2)}×`);
  console.log(
    `\n## verify wall and CPU time (median of ${rounds}, interleaved; golden cases replayed, no --fuzz unless named; CPU counts the tool runs verify waited for; budget: fleet < 15 s)`,
  );
  console.log(
    `  base = verify/ at ${ref} (${base?.commit ?? "not found: set BENCH_BASE"}), now = verify/ in the working tree (at ${head})`,
  );
  console.log(
    `  load average (1, 5, 15 min) on ${navigator.hardwareConcurrency} cores: before ${loadBefore}, after ${load()}`,
  );
  const heads = ["base wall", "now wall", "×", "base CPU", "now CPU", "×"];
  console.log(`  ${"".padEnd(36)} ${heads.map((h) => h.padStart(9)).join(" ")}`);
  for (const [i, c] of now.entries()) {
    const was = before[i];
    const exit = was ? samples.get(was.name)!.find((s) => s.exitCode !== 0)?.exitCode : undefined;
    const cells = [
      seconds(was ? wall(was) : null),
      seconds(wall(c)),
      ratio(was ? wall(was) : null, wall(c)),
      seconds(was ? cpu(was) : null),
      seconds(cpu(c)),
      ratio(was ? cpu(was) : null, cpu(c)),
    ];
    const budget = i === 0 ? (wall(c) < 15000 ? "  within budget" : "  OVER BUDGET") : "";
    const verdict = exit === undefined ? "" : `  (base exits ${exit} here)`;
    console.log(`  ${c.name.slice(5).padEnd(36)} ${cells.map((x) => x.padStart(9)).join(" ")}${budget}${verdict}`);
  }
}

/**
 * What a terminal probe costs: /bin/true on a pty through verify's python3 helper, and through util-linux
 * `script -qfec` (the alternative it was chosen over), against /bin/true alone; each started in a session of
 * its own, as verify starts every run.
 */
export async function benchTerminal(rounds: number): Promise<void> {
  const python = await ptyPython();
  const result = join(root, "dist", ".bench", "tty-result");
  mkdirSync(join(root, "dist", ".bench"), { recursive: true });
  const cases: Case[] = [
    { name: "/bin/true", argv: ["setsid", "-w", "/bin/true"] },
    ...(python
      ? [{ name: "python3 pty helper", argv: ["setsid", "-w", ...onTerminal(python, result, "/bin/true", [])] }]
      : []),
    ...(Bun.which("script")
      ? [{ name: "script -qfec", argv: ["setsid", "-w", "script", "-qfec", "/bin/true", "/dev/null"] }]
      : []),
  ];
  const samples = await interleave(cases, rounds * 10);
  console.log(`\n## a run on a pseudo-terminal (median of ${rounds * 10}, interleaved; python3: ${python ?? "none"})`);
  for (const c of cases)
    console.log(
      `  ${c.name.padEnd(36)} ${median(samples.get(c.name)!.map((x) => x.wallMs))
        .toFixed(1)
        .padStart(7)} ms`,
    );
}

if (import.meta.main) await benchTerminal(Math.max(1, Math.min(5, Math.round(roundsArg() / 10))));
if (import.meta.main) await benchVerify(Math.max(1, Math.min(5, Math.round(roundsArg() / 10))));
