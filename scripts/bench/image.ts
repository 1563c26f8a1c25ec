/**
 * The µVM image: the multicall binary's size against the separate binaries,
 * and each tool's start-up through its dist/image/bin link against its
 * separate binary, interleaved in one run, with the bare binary as the floor.
 * Goals: the multicall at most 1.1× one tool's size; every link case within
 * 2.0× bare and within 10% of the separate binary.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../compile.ts";
import { interleave, median, roundsArg, sizeMb, table, type Case } from "./measure.ts";

const root = join(import.meta.dir, "..", "..");
const dist = join(root, "dist");
const image = join(dist, "image", "bin");

export async function benchImage(rounds: number): Promise<void> {
  const bare = join(dist, "bench", "bare");
  await compile(join(import.meta.dir, "bare.ts"), bare);
  // Every binary the image links: each tool and the verifier.
  const separate = readdirSync(image)
    .filter((n) => n !== "fleet")
    .sort();
  const count = `${separate.length} separate binaries`;
  const sizes = separate.map((t) => [t, sizeMb(join(dist, t))] as const);
  const fleet = sizeMb(join(dist, "fleet"));
  const largest = Math.max(...sizes.map(([, s]) => s));
  console.log(`\n## the µVM image: size\n`);
  console.log(
    table(
      ["binary", "MB"],
      [
        ...sizes.map(([t, s]) => [`dist/${t}`, s.toFixed(1)]),
        [count, sizes.reduce((n, [, s]) => n + s, 0).toFixed(1)],
        [`dist/fleet (the image: one binary, ${separate.length} links)`, fleet.toFixed(1)],
      ],
    ),
  );
  console.log(
    `\nmulticall: ${(fleet / largest).toFixed(3)}× the largest single binary (goal ≤ 1.1×); the image is ${(sizes.reduce((n, [, s]) => n + s, 0) / fleet).toFixed(2)}× smaller than ${count}`,
  );

  const runDir = mkdtempSync(join(tmpdir(), "bench-image-"));
  for (const stage of [["crawl", "--dir", join(root, "examples", "site")], ["extract"], ["audit"]])
    if (Bun.spawnSync([join(dist, "seo"), ...stage, "--run-dir", runDir], { stdout: "ignore" }).exitCode !== 0)
      throw new Error(`seo ${stage[0]} failed`);
  const repo = join(runDir, "kb");
  mkdirSync(join(repo, "notes"), { recursive: true });
  writeFileSync(join(repo, "notes", "one.md"), "---\ntitle: One\n---\n\nThe only note.\n");
  Bun.spawnSync(["git", "-C", repo, "init", "-q"]);

  const probes: [string, string, string[]][] = [
    ["seo", "seo --describe", ["--describe"]],
    ["seo", "seo audit --severity urgent", ["audit", "--severity", "urgent"]],
    ["seo", "seo finding list", ["finding", "list", "--run-dir", runDir, "--limit", "5"]],
    ["brain", "brain note list (one note)", ["note", "list", "--repo", repo]],
    ["gate", "gate --describe", ["--describe"]],
    ["harness", "harness --describe", ["--describe"]],
  ];
  const cases: Case[] = [
    { name: "bare", argv: [bare] },
    ...probes.flatMap(([tool, name, args]) => [
      { name: `${name} [separate]`, argv: [join(dist, tool), ...args] },
      { name: `${name} [image link]`, argv: [join(image, tool), ...args] },
    ]),
  ];
  const results = await interleave(cases, rounds);
  const med = (name: string) => median(results.get(name)!.map((s) => s.wallMs));
  const floor = med("bare");
  console.log(`\n## the µVM image: start-up through the links (${rounds} interleaved rounds, medians)\n`);
  const rows = probes.map(([, name]) => {
    const sep = med(`${name} [separate]`);
    const link = med(`${name} [image link]`);
    return [
      name,
      sep,
      link,
      `${(sep / floor).toFixed(2)}×`,
      `${(link / floor).toFixed(2)}×`,
      `${((link / sep - 1) * 100).toFixed(1)}%`,
    ] as const;
  });
  console.log(
    table(
      ["case", "separate ms", "link ms", "separate × bare", "link × bare", "link vs separate"],
      [["bare", floor, floor, "1.00×", "1.00×", ""], ...rows],
    ),
  );
  const worstBare = Math.max(...rows.map((r) => Number(r[2]) / floor));
  const worstSep = Math.max(...rows.map((r) => Number(r[2]) / Number(r[1])));
  console.log(
    `\nlinks: slowest ${worstBare.toFixed(2)}× bare (budget 2.0×: ${worstBare <= 2 ? "within" : "OVER"}); at most ${((worstSep - 1) * 100).toFixed(1)}% slower than the separate binary (goal ≤ 10%: ${worstSep <= 1.1 ? "met" : "NOT MET"})`,
  );
  rmSync(runDir, { recursive: true, force: true });
}

if (import.meta.main) await benchImage(roundsArg());
