/** Measuring helpers for the benchmarks: interleaved runs, medians, side by side. */
import { statSync } from "node:fs";

export interface Case {
  readonly name: string;
  readonly argv: readonly string[];
  readonly env?: Record<string, string>;
  /** The folder it runs in (default: the benchmark's). */
  readonly cwd?: string;
}

export interface Sample {
  wallMs: number;
  cpuMs: number;
  exitCode: number;
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

export async function runOnce(c: Case): Promise<Sample> {
  const t = performance.now();
  const p = Bun.spawn([...c.argv], {
    cwd: c.cwd,
    stdout: "ignore",
    stderr: "ignore",
    stdin: "ignore",
    env: { ...process.env, ...c.env },
  });
  const exitCode = await p.exited;
  const wallMs = performance.now() - t;
  return { wallMs, cpuMs: Number(p.resourceUsage()!.cpuTime.total) / 1000, exitCode };
}

/**
 * Peak RSS in MB, read by GNU time: a child's own rusage from Bun counts the
 * parent's pages at spawn, so it reports the benchmark's memory, not the tool's.
 */
export function peakRssMb(c: Case): number | null {
  const time = "/usr/bin/time";
  if (!Bun.which(time)) return null;
  const p = Bun.spawnSync([time, "-f", "%M", ...c.argv], {
    stdout: "ignore",
    stderr: "pipe",
    env: { ...process.env, ...c.env },
  });
  const kb = Number(p.stderr.toString().trim().split("\n").at(-1));
  return Number.isFinite(kb) ? kb / 1024 : null;
}

/** Round-robin: every case runs once per round, so drift in machine load hits all of them alike. */
export async function interleave(cases: readonly Case[], rounds: number, warmup = 3): Promise<Map<string, Sample[]>> {
  const out = new Map(cases.map((c) => [c.name, [] as Sample[]]));
  for (let r = 0; r < warmup + rounds; r++)
    for (const c of cases) {
      const s = await runOnce(c);
      if (r >= warmup) out.get(c.name)!.push(s);
    }
  return out;
}

export const sizeMb = (path: string): number => statSync(path).size / 1024 / 1024;

export function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [
    headers,
    ...rows.map((r) => r.map((c) => (typeof c === "number" ? c.toFixed(c >= 100 ? 0 : c >= 10 ? 1 : 2) : c))),
  ];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => String(r[i]).length)));
  return cells
    .map((r) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join("  "))
    .join("\n");
}

/** `--rounds N` of a section run on its own (the bench driver passes its own). */
export function roundsArg(fallback = 40): number {
  const at = process.argv.indexOf("--rounds");
  const n = at === -1 ? fallback : Number(process.argv[at + 1]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
