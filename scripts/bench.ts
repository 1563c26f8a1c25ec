/**
 * The benchmarks: figures measured side by side in one run, never timed
 * tests. `bun run bench [startup|scaffold|image|verify|ledger|brain|seo|toon|redact] [--rounds N] [--dist DIR] [--no-instructions]`.
 *
 * Each section runs in a process of its own that loads only what it
 * measures with: a spawned child is charged for its parent's size, so a
 * parent carrying every section's imports would slow every binary it times.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const SECTIONS = ["startup", "scaffold", "image", "verify", "ledger", "brain", "seo", "toon", "redact"] as const;
const args = process.argv.slice(2);
const roundsAt = args.indexOf("--rounds");
const rounds = roundsAt === -1 ? 40 : Number(args[roundsAt + 1]);
/** Flags that take a value, passed on to each section with the rest (`--dist DIR`: measure another build's binaries). */
const VALUED = ["--rounds", "--dist"];
const only = args.filter((a, i) => !a.startsWith("--") && !VALUED.includes(args[i - 1]!));
const passed = args.filter((a) => !only.includes(a));
const unknown = only.filter((s) => !(SECTIONS as readonly string[]).includes(s));
if (unknown.length > 0 || !Number.isInteger(rounds) || rounds < 1) {
  console.error(`usage: bun scripts/bench.ts [${SECTIONS.join("|")}]... [--rounds N] [--dist DIR] [--no-instructions]`);
  process.exit(2);
}
const distAt = args.indexOf("--dist");
if (!existsSync(join(distAt === -1 ? join(import.meta.dir, "..", "dist") : args[distAt + 1]!, "seo"))) {
  console.error("dist/ is not built: run `bun run build` first");
  process.exit(2);
}
console.log(
  `# agent-cli-kit benchmarks (${new Date().toISOString()}, ${navigator.hardwareConcurrency} cores, bun ${Bun.version})`,
);
for (const section of SECTIONS.filter((s) => only.length === 0 || only.includes(s))) {
  const child = Bun.spawn(
    [process.execPath, join(import.meta.dir, "bench", `${section}.ts`), "--rounds", String(rounds), ...passed],
    { stdio: ["inherit", "inherit", "inherit"] },
  );
  if ((await child.exited) !== 0) process.exit(1);
}
