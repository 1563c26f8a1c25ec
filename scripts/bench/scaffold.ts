/**
 * Start-up of a tool as an author makes it: `agent-cli-kit new weather`
 * (this repository's src/author, the kit linked in as an installed package
 * would be), built by `agent-cli-kit build`, its `--describe` and a command
 * timed against a bare binary compiled by Bun's own command line,
 * `bun build --compile --minify --bytecode`, printing one JSON line.
 * Interleaved rounds, medians, ratios; every command printed as it ran.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { interleave, median, percentile, roundsArg, sizeMb, table, type Case } from "./measure.ts";

const root = join(import.meta.dir, "..", "..");

/** Runs one step, printing it; a failure stops the benchmark with the step's own output. */
function step(argv: readonly string[], cwd: string): string {
  console.log(`$ (cd ${cwd} && ${argv.join(" ")})`);
  const p = Bun.spawnSync([...argv], { cwd, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${p.exitCode}: ${p.stderr}${p.stdout}`);
  return p.stdout.toString();
}

/** `agent-cli-kit new weather` and `agent-cli-kit build` in `dir`, beside a bare binary; each step printed. */
export function scaffolded(dir: string, kit: string = root): { binary: string; entry: string; bare: string } {
  // The kit as `npm install` of its folder lays it out: node_modules/agent-cli-kit, its dependencies beside it.
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(kit, join(dir, "node_modules", "agent-cli-kit"));
  symlinkSync(join(kit, "node_modules", "zod"), join(dir, "node_modules", "zod"));
  step([process.execPath, join(kit, "src", "author", "main.ts"), "new", "weather", "--json"], dir);
  const tool = join(dir, "weather");
  step([process.execPath, join(kit, "src", "author", "main.ts"), "build", "--json"], tool);
  const bareEntry = join(dir, "bare.ts");
  writeFileSync(bareEntry, "console.log(JSON.stringify({ ok: true, data: {} }));\n");
  const bare = join(dir, "bare");
  step([process.execPath, "build", "--compile", "--minify", "--bytecode", bareEntry, "--outfile", bare], dir);
  return { binary: join(tool, "dist", "weather"), entry: join(tool, "dist", ".build", "weather", "entry.ts"), bare };
}

export async function benchScaffold(rounds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-scaffold-"));
  console.log("\n## a scaffolded tool's start-up against a bare compiled binary\n");
  const { binary, bare } = scaffolded(dir);

  const cases: Case[] = [
    { name: "bare (one JSON line)", argv: [bare] },
    { name: "weather --describe", argv: [binary, "--describe"] },
    { name: "weather item get --id alpha", argv: [binary, "item", "get", "--id", "alpha"] },
  ];
  console.log(`\ntimed, ${rounds} interleaved rounds (each case once per round, in turn; 3 warm-up rounds):`);
  for (const c of cases) console.log(`  ${c.argv.join(" ")}`);
  const results = await interleave(cases, rounds);
  const wall = (name: string) => results.get(name)!.map((s) => s.wallMs);
  const cpu = (name: string) => results.get(name)!.map((s) => s.cpuMs);
  const bareWall = median(wall(cases[0]!.name));
  const bareCpu = median(cpu(cases[0]!.name));
  console.log(
    `\n${table(
      ["case", "median ms", "p90 ms", "× bare (wall)", "cpu ms", "× bare (cpu)", "exit"],
      cases.map((c) => [
        c.name,
        median(wall(c.name)),
        percentile(wall(c.name), 90),
        `${(median(wall(c.name)) / bareWall).toFixed(2)}×`,
        median(cpu(c.name)),
        `${(median(cpu(c.name)) / bareCpu).toFixed(2)}×`,
        String(results.get(c.name)![0]!.exitCode),
      ]),
    )}`,
  );
  console.log(`binary size: bare ${sizeMb(bare).toFixed(1)} MB, weather ${sizeMb(binary).toFixed(1)} MB`);
  rmSync(dir, { recursive: true, force: true });
}

if (import.meta.main) await benchScaffold(roundsArg());
