/**
 * The benchmarks: figures measured side by side in one run, never timed
 * tests. `bun run bench [startup|…] [--rounds N]`; builds dist/ first if needed.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { benchStartup } from "./bench/startup.ts";
import { benchVerify } from "./bench/verify.ts";
import { benchLedger } from "./bench/ledger.ts";
import { benchBrain } from "./bench/brain.ts";

const args = process.argv.slice(2);
const roundsAt = args.indexOf("--rounds");
const rounds = roundsAt === -1 ? 40 : Number(args[roundsAt + 1]);
const only = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--rounds");
const wants = (name: string) => only.length === 0 || only.includes(name);

if (!existsSync(join(import.meta.dir, "..", "dist", "seo"))) {
  console.error("dist/ is not built: run `bun run build` first");
  process.exit(2);
}
console.log(`# agent-cli-kit benchmarks (${new Date().toISOString()}, ${navigator.hardwareConcurrency} cores, bun ${Bun.version})`);
if (wants("startup")) await benchStartup(rounds);
if (wants("verify")) await benchVerify(Math.max(1, Math.min(5, Math.round(rounds / 10))));
if (wants("ledger")) await benchLedger();
if (wants("brain")) await benchBrain(Math.max(3, Math.min(10, Math.round(rounds / 4))));
