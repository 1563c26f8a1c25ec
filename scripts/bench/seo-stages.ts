/** seo's stages, run through a compiled binary and measured: wall time and peak RSS per stage. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./measure.ts";

export const STAGES = ["crawl", "extract", "audit", "score", "plan"] as const;
export type Stage = (typeof STAGES)[number];

export interface Measured {
  pages: number;
  htmlMb: number;
  ms: Partial<Record<Stage, number>>;
  /** CPU time (user + system): what the machine's other load does not inflate, unlike wall time. */
  cpuMs: Partial<Record<Stage, number>>;
  rss: Partial<Record<Stage, number>>;
  /** Why the binary could not run the pipeline over this site (its error), or null. */
  failed: string | null;
}

interface StageRun {
  ms: number;
  cpuMs: number | null;
  rssMb: number | null;
  out: string;
  error: string | null;
}

/** One run of a stage: wall time, stdout, and peak RSS and CPU time by GNU time (a child's rusage from Bun counts the parent's pages). */
async function stageRun(argv: string[]): Promise<StageRun> {
  const time = "/usr/bin/time";
  const withTime = Bun.which(time) ? [time, "-f", "%M %U %S", ...argv] : argv;
  const t = performance.now();
  const p = Bun.spawn(withTime, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const ms = performance.now() - t;
  const [kb, user, sys] = (err.trim().split("\n").at(-1) ?? "").split(" ").map(Number);
  const timed = Bun.which(time) !== null && Number.isFinite(kb) && Number.isFinite(user) && Number.isFinite(sys);
  const rssMb = timed ? kb! / 1024 : null;
  const cpuMs = timed ? (user! + sys!) * 1000 : null;
  if (code === 0) return { ms, cpuMs, rssMb, out, error: null };
  let error = `exit ${code}`;
  try {
    error = JSON.parse(out).error.message;
  } catch {}
  return { ms, cpuMs, rssMb, out, error };
}

export interface Site {
  dir: string;
  base: string;
  maxPages: number;
  htmlBytes: number;
}

/** The whole pipeline once into a fresh run dir; a stage that fails ends the run, and says why. */
async function pipeline(seo: string, site: Site): Promise<Measured> {
  const run = mkdtempSync(join(tmpdir(), "seo-bench-run-"));
  const argv: Record<Stage, string[]> = {
    crawl: [
      "crawl",
      "--dir",
      site.dir,
      "--base-url",
      site.base,
      "--max-pages",
      String(site.maxPages),
      "--max-depth",
      "50",
    ],
    extract: ["extract"],
    audit: ["audit"],
    score: ["score"],
    plan: ["plan"],
  };
  const m: Measured = { pages: 0, htmlMb: site.htmlBytes / 1024 / 1024, ms: {}, cpuMs: {}, rss: {}, failed: null };
  try {
    for (const stage of STAGES) {
      const r = await stageRun([seo, ...argv[stage], "--run-dir", run, "--json"]);
      if (r.error !== null) {
        m.failed = `${stage}: ${r.error}`;
        break;
      }
      m.ms[stage] = r.ms;
      if (r.rssMb !== null) m.rss[stage] = r.rssMb;
      if (r.cpuMs !== null) m.cpuMs[stage] = r.cpuMs;
      if (stage === "crawl") m.pages = JSON.parse(r.out).data.pages;
    }
  } finally {
    rmSync(run, { recursive: true, force: true });
  }
  return m;
}

/**
 * Each binary's pipeline `rounds` times, the binaries taking turns each round
 * (drift in the machine's load hits them alike): per stage the median time and
 * the highest peak RSS.
 */
export async function sideBySide(binaries: readonly string[], site: Site, rounds: number): Promise<Measured[]> {
  const runs = binaries.map(() => [] as Measured[]);
  for (let r = 0; r < rounds; r++) for (const [i, seo] of binaries.entries()) runs[i]!.push(await pipeline(seo, site));
  return runs.map((ms) => {
    const failed = ms.find((m) => m.failed)?.failed ?? null;
    const done = ms.filter((m) => !m.failed);
    const of = (s: Stage, k: "ms" | "cpuMs" | "rss") =>
      done.map((m) => m[k][s]).filter((v): v is number => v !== undefined);
    return {
      pages: Math.max(0, ...ms.map((m) => m.pages)),
      htmlMb: ms[0]!.htmlMb,
      ms: Object.fromEntries(STAGES.flatMap((s) => (of(s, "ms").length ? [[s, median(of(s, "ms"))]] : []))),
      cpuMs: Object.fromEntries(STAGES.flatMap((s) => (of(s, "cpuMs").length ? [[s, median(of(s, "cpuMs"))]] : []))),
      rss: Object.fromEntries(STAGES.flatMap((s) => (of(s, "rss").length ? [[s, Math.max(...of(s, "rss"))]] : []))),
      failed,
    };
  });
}
