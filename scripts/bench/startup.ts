/**
 * Start-up of the compiled tools against a bare compiled binary, measured
 * side by side: interleaved rounds, medians, ratios, peak memory, size.
 * Budget (issue: kit): each case at most 2.0× the bare binary.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../compile.ts";
import { interleave, median, peakRssMb, percentile, roundsArg, sizeMb, table, type Case } from "./measure.ts";

const root = join(import.meta.dir, "..", "..");
const dist = join(root, "dist");

const BUDGET = 2.0;

export async function benchStartup(rounds: number): Promise<void> {
  const bare = join(dist, "bench", "bare");
  await compile(join(import.meta.dir, "bare.ts"), bare);
  const seo = join(dist, "seo");
  const runDir = mkdtempSync(join(tmpdir(), "bench-startup-"));
  for (const stage of [["crawl", "--dir", join(root, "examples", "site")], ["extract"], ["audit"]])
    if (Bun.spawnSync([seo, ...stage, "--run-dir", runDir], { stdout: "ignore" }).exitCode !== 0)
      throw new Error(`seo ${stage[0]} failed`);

  const cases: Case[] = [
    { name: "bare (prints one JSON object)", argv: [bare] },
    { name: "seo --describe", argv: [seo, "--describe"] },
    { name: "seo audit --severity urgent", argv: [seo, "audit", "--severity", "urgent"] },
    { name: "seo finding list (success)", argv: [seo, "finding", "list", "--run-dir", runDir, "--limit", "5"] },
  ];
  const results = await interleave(cases, rounds);
  const bareMedian = median(results.get(cases[0]!.name)!.map((s) => s.wallMs));
  console.log(`\n## start-up (${rounds} interleaved rounds; wall time of spawn to exit)\n`);
  console.log(
    table(
      ["case", "median ms", "p90 ms", "× bare", "cpu ms", "peak RSS MB", "exit"],
      cases.map((c) => {
        const s = results.get(c.name)!;
        const m = median(s.map((x) => x.wallMs));
        const rss = peakRssMb(c);
        return [
          c.name,
          m,
          percentile(
            s.map((x) => x.wallMs),
            90,
          ),
          `${(m / bareMedian).toFixed(2)}×`,
          median(s.map((x) => x.cpuMs)),
          rss === null ? "n/a" : rss,
          String(s[0]!.exitCode),
        ];
      }),
    ),
  );
  rmSync(runDir, { recursive: true, force: true });
  const worst = Math.max(...cases.slice(1).map((c) => median(results.get(c.name)!.map((x) => x.wallMs)) / bareMedian));
  console.log(
    `\nbudget: every case at most ${BUDGET.toFixed(1)}× bare; the slowest is ${worst.toFixed(2)}×: ${worst <= BUDGET ? "within budget" : "OVER BUDGET"}`,
  );
  console.log(
    `binary size: bare ${sizeMb(bare).toFixed(1)} MB, seo ${sizeMb(seo).toFixed(1)} MB (${(sizeMb(seo) - sizeMb(bare)).toFixed(2)} MB over bare)`,
  );
}

if (import.meta.main) await benchStartup(roundsArg());
