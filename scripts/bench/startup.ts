/**
 * Start-up of every path an agent waits on, against a bare compiled binary
 * (`bun build --compile --minify --bytecode`, one JSON line), measured side by
 * side: interleaved rounds, each path's wall and CPU time paired with the bare
 * binary's in the same round (the median of the per-round ratios). Beside
 * each, what load does not move, so a regression names its cause: the
 * modules and chunks the path evaluates (graph.ts), the files it opens and
 * its system calls (strace), its instructions (callgrind).
 *
 * Budget: every path at most 1.5× bare (verify 2×), judged on wall time on a
 * quiet machine and on CPU time (user + sys) when the load average passes
 * the core count, where wall time measures the queue. Over budget exits 1.
 *
 *   bun scripts/bench/startup.ts [--rounds N] [--dist DIR] [--no-instructions]
 *
 * `--dist DIR` measures another build (its binaries and its generated entries).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { compile } from "../compile.ts";
import { type Loaded, loadedBy, unpacked } from "./graph.ts";
import { interleave, median, roundsArg, sizeMb, type Case } from "./measure.ts";
import { scaffolded } from "./scaffold.ts";
import { type Traced, traced } from "./trace.ts";

const at = process.argv.indexOf("--dist");
const dist = at === -1 ? join(import.meta.dir, "..", "..", "dist") : process.argv[at + 1]!;
const root = dirname(dist);
const withInstructions = !process.argv.includes("--no-instructions");

interface Path extends Case {
  readonly budget: number;
  /** The entry its binary was compiled from, and whether zod/mini was the stand-in. */
  readonly entry: { readonly file: string; readonly zodStandIn: boolean };
  readonly cwd: string;
}

/** The fixtures the read paths read: a run dir audited by seo, a notes repository holding one note. */
function fixtures(work: string): { runDir: string; notes: string } {
  const seo = join(dist, "seo");
  const runDir = join(work, "run");
  for (const stage of [["crawl", "--dir", join(root, "examples", "site")], ["extract"], ["audit"]])
    if (Bun.spawnSync([seo, ...stage, "--run-dir", runDir], { stdout: "ignore" }).exitCode !== 0)
      throw new Error(`seo ${stage[0]} failed`);
  const notes = join(work, "notes");
  mkdirSync(join(notes, "notes"), { recursive: true });
  writeFileSync(join(notes, "notes", "one.md"), "---\nid: one\ntitle: One note\ntags: [a]\n---\n\nA line.\n");
  Bun.spawnSync(["git", "init", "-q", notes]);
  return { runDir, notes };
}

/** A provider key of the length real ones have (the kit masks every form of it in everything a tool prints). */
const AGENT_KEY = { OPENAI_API_KEY: "sk-bench-0123456789abcdefghijklmnopqrstuvwxyzABCDEF" };

async function paths(work: string): Promise<Path[]> {
  const bare = join(work, "bare");
  const bareEntry = join(work, "bare.ts");
  writeFileSync(bareEntry, "console.log(JSON.stringify({ ok: true, data: {} }));\n");
  await compile(bareEntry, bare);
  const { runDir, notes } = fixtures(work);
  const tool = (name: string) => ({ file: join(dist, ".build", name, "entry.ts"), zodStandIn: true });
  const p = (name: string, argv: string[], budget = 1.5, entry = tool(argv[0]!)): Path => ({
    name,
    argv: [argv[0] === "bare" ? bare : join(dist, argv[0]!), ...argv.slice(1)],
    budget,
    entry,
    cwd: work,
  });
  const scaffold = scaffolded(join(work, "scaffold"), root);
  return [
    p("bare (one JSON line)", ["bare"], 1, { file: bareEntry, zodStandIn: false }),
    p("seo --describe", ["seo", "--describe"]),
    p("seo audit --severity urgent (usage error)", ["seo", "audit", "--severity", "urgent"]),
    p("seo finding list (a read)", ["seo", "finding", "list", "--run-dir", runDir, "--limit", "5"]),
    p("seo --help", ["seo", "--help"]),
    p("seo --version", ["seo", "--version"]),
    p("brain --describe", ["brain", "--describe"]),
    p("brain note list (1 note)", ["brain", "note", "list", "--repo", notes]),
    p("gate --describe", ["gate", "--describe"]),
    // As an agent runs them: its environment holds a model provider's key, which every output is redacted of.
    { ...p("seo --describe, a key in the environment", ["seo", "--describe"]), env: AGENT_KEY },
    {
      ...p("seo finding list, a key in the environment", [
        "seo",
        "finding",
        "list",
        "--run-dir",
        runDir,
        "--limit",
        "5",
      ]),
      env: AGENT_KEY,
    },
    p("verify --help", ["verify", "--help"], 2, { file: join(root, "verify", "main.ts"), zodStandIn: false }),
    p("verify (no binary: usage error)", ["verify"], 2, { file: join(root, "verify", "main.ts"), zodStandIn: false }),
    {
      name: "scaffolded weather --describe",
      argv: [scaffold.binary, "--describe"],
      budget: 1.5,
      entry: { file: scaffold.entry, zodStandIn: true },
      cwd: work,
    },
  ];
}

/** The modules each path evaluates, one unpacked bundle per entry. */
async function graphs(all: readonly Path[]): Promise<Map<string, Loaded>> {
  const bundles = new Map<string, Awaited<ReturnType<typeof unpacked>>>();
  const out = new Map<string, Loaded>();
  for (const c of all) {
    if (!bundles.has(c.entry.file)) bundles.set(c.entry.file, await unpacked(c.entry.file, c.entry, root));
    out.set(c.name, loadedBy(bundles.get(c.entry.file)!, c.argv.slice(1), c.cwd));
  }
  for (const b of bundles.values()) rmSync(b.dir, { recursive: true, force: true });
  return out;
}

const fixed = (n: number | null, digits = 1) => (n === null ? "n/a" : n.toFixed(digits));

export async function benchStartup(rounds: number): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "bench-startup-"));
  const all = await paths(work);
  const [bare, ...rest] = all;
  const cores = navigator.hardwareConcurrency;
  const loadBefore = loadavg()[0]!;
  const results = await interleave(all, rounds);
  const load = (loadBefore + loadavg()[0]!) / 2;
  const loaded = load > cores;
  const samples = (c: Case) => results.get(c.name)!;
  // Paired: each round's time over the bare binary's in the same round, then the median of those ratios.
  const paired = (c: Case, key: "wallMs" | "cpuMs") =>
    median(samples(c).map((s, i) => s[key] / Math.max(samples(bare!)[i]![key], 0.001)));
  const modules = await graphs(all);
  const trace = new Map<string, Traced>(all.map((c) => [c.name, traced(c.argv, c.cwd, withInstructions, c.env)]));
  const bareTrace = trace.get(bare!.name)!;

  console.log(
    `\n## start-up (${rounds} interleaved rounds; load average ${load.toFixed(1)} on ${cores} cores: judged on ${loaded ? "CPU time" : "wall time"})\n`,
  );
  const rows = all.map((c) => {
    const t = trace.get(c.name)!;
    const m = modules.get(c.name)!;
    const wall = paired(c, "wallMs");
    const cpu = paired(c, "cpuMs");
    const judged = loaded ? cpu : wall;
    return {
      c,
      judged,
      cells: [
        c.name,
        fixed(median(samples(c).map((s) => s.wallMs))),
        `${wall.toFixed(2)}×`,
        fixed(median(samples(c).map((s) => s.cpuMs))),
        `${cpu.toFixed(2)}×`,
        t.instructionsM === null
          ? "n/a"
          : `${t.instructionsM.toFixed(1)} (+${(t.instructionsM - (bareTrace.instructionsM ?? 0)).toFixed(1)})`,
        `${m.modules} in ${m.chunks}`,
        fixed(m.kb, 0),
        fixed(t.opened, 0),
        fixed(t.syscalls, 0),
        c === bare ? "" : `${c.budget.toFixed(1)}×`,
        String(samples(c)[0]!.exitCode),
      ],
    };
  });
  const head = [
    "path",
    "wall ms",
    "× bare",
    "cpu ms",
    "× bare",
    "instr. M (+bare)",
    "modules",
    "KB",
    "opens",
    "syscalls",
    "budget",
    "exit",
  ];
  console.log(`| ${head.join(" | ")} |\n|${head.map(() => "---").join("|")}|`);
  for (const r of rows) console.log(`| ${r.cells.join(" | ")} |`);
  console.log("\nlargest evaluated, per path (KB of bundled code; the kit by folder, a package by name):");
  for (const c of rest)
    console.log(
      `  ${c.name}: ${modules
        .get(c.name)!
        .largest.slice(0, 5)
        .map((o) => `${o.name} ${o.kb.toFixed(1)}`)
        .join(", ")}`,
    );
  const sizes = [...new Set(all.map((c) => c.argv[0]!))].map(
    (b) => `${b.slice(b.lastIndexOf("/") + 1)} ${sizeMb(b).toFixed(1)}`,
  );
  console.log(`\nbinary size, MB: ${sizes.join(", ")}`);
  const over = rows.filter((r) => r.c !== bare && r.judged > r.c.budget);
  rmSync(work, { recursive: true, force: true });
  if (over.length === 0) {
    console.log(`\nbudget: every path within its budget on ${loaded ? "CPU" : "wall"} time`);
    return;
  }
  for (const r of over)
    console.log(
      `OVER BUDGET: ${r.c.name} ${r.judged.toFixed(2)}× (budget ${r.c.budget.toFixed(1)}×) on ${loaded ? "CPU" : "wall"} time`,
    );
  process.exitCode = 1;
}

if (import.meta.main) await benchStartup(roundsArg());
