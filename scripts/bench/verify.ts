/** Wall time of `dist/verify` over the whole fleet (also as CI runs it: --strict --fuzz 15) and over each tool alone (no --fuzz), medians. */
import { join } from "node:path";
import { toolNames } from "../build.ts";
import { median, roundsArg, runOnce } from "./measure.ts";

export async function benchVerify(rounds: number): Promise<void> {
  const root = join(import.meta.dir, "..", "..");
  const verify = join(root, "dist", "verify");
  const tools = toolNames();
  const golden = ["--golden", join(root, "test", "golden")];
  const cases = [
    { name: `fleet (${tools.join(", ")})`, argv: [verify, ...golden, ...tools.map((t) => join(root, "dist", t))] },
    // As the fleet's CI runs it: every kit extension demanded, 15 fuzzed calls per command (a fixed seed).
    {
      name: "fleet --strict --fuzz 15",
      argv: [verify, "--strict", "--fuzz", "15", "--seed", "1", ...golden, ...tools.map((t) => join(root, "dist", t))],
    },
    ...tools.map((t) => ({ name: t, argv: [verify, ...golden, join(root, "dist", t)] })),
  ];
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let i = 0; i < rounds; i++)
    for (const c of cases) {
      const s = await runOnce(c);
      if (s.exitCode !== 0) throw new Error(`${c.argv.join(" ")} exited ${s.exitCode}: the fleet does not conform`);
      samples.get(c.name)!.push(s.wallMs);
    }
  console.log(
    `\n## verify wall time (median of ${rounds}, golden cases replayed, no --fuzz unless named; budget: fleet < 15 s)`,
  );
  for (const c of cases) {
    const ms = median(samples.get(c.name)!);
    console.log(
      `  ${c.name.padEnd(40)} ${(ms / 1000).toFixed(2)} s${c === cases[0] ? (ms < 15000 ? "  within budget" : "  OVER BUDGET") : ""}`,
    );
  }
}

if (import.meta.main) await benchVerify(Math.max(1, Math.min(5, Math.round(roundsArg() / 10))));
