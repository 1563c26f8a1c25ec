/**
 * The fleet's main job: build every binary, verify every tool with the
 * compiled verifier, then audit the example site end to end with dist/seo.
 * Exits non-zero if any step fails.
 */
import { cpSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { toolNames } from "./build.ts";

const root = join(import.meta.dir, "..");
const dist = join(root, "dist");

function step(title: string, argv: string[], opts: { quiet?: boolean } = {}): string {
  console.error(`\n▶ ${title}\n  $ ${argv.map((a) => a.replace(`${root}/`, "")).join(" ")}`);
  const p = Bun.spawnSync(argv, { cwd: root, stdout: "pipe", stderr: "inherit", env: process.env });
  const out = p.stdout.toString();
  if (!opts.quiet) process.stdout.write(out);
  if (p.exitCode !== 0) {
    if (opts.quiet) process.stdout.write(out);
    console.error(`✗ ${title} failed (exit ${p.exitCode})`);
    process.exit(p.exitCode || 1);
  }
  return out;
}

step("build every binary into dist/", [process.execPath, join(root, "scripts", "build.ts")]);

const tools = toolNames().map((t) => join(dist, t));
if (existsSync(join(dist, "verify"))) {
  // The envelope is for machines; a person running the fleet gets one line per tool (a failure prints it whole).
  // Every check proven and every kit extension demanded (--strict --all-extensions), and a fresh fuzzing seed each run, printed so a failure replays.
  const seed = Math.floor(Math.random() * 1_000_000);
  console.log(`  fuzzing with --seed ${seed}`);
  const verified = JSON.parse(
    step(
      "verify every tool against the contract",
      [
        join(dist, "verify"),
        "--json",
        "--strict",
        "--all-extensions",
        "--fuzz",
        "15",
        "--seed",
        String(seed),
        "--golden",
        join(root, "test", "golden"),
        ...tools,
      ],
      { quiet: true },
    ),
  );
  for (const t of verified.data.tools)
    console.log(
      `  ✓ ${t.tool}: ${t.checks.filter((c: { status: string }) => c.status === "pass").length} checks pass (${t.runs} runs)`,
    );
  console.log(
    `  ${verified.data.summary.conforming} of ${verified.data.summary.tools} tools conform, in ${(verified.data.summary.duration_ms / 1000).toFixed(1)} s`,
  );
}

const runDir = join(dist, "example-run");
rmSync(runDir, { recursive: true, force: true });
rmSync(join(dist, "example-reaudit"), { recursive: true, force: true }); // the re-audit the printed lines make
const seo = join(dist, "seo");
// A copy, so that applying the planned fixes never edits the repository's example.
const site = join(dist, "example-site");
rmSync(site, { recursive: true, force: true });
cpSync(join(root, "examples", "site"), site, { recursive: true });
step(
  "crawl the example site",
  [seo, "crawl", "--dir", site, "--base-url", "https://harbour.example", "--run-dir", runDir, "--json"],
  { quiet: true },
);
step("extract each page's signals", [seo, "extract", "--run-dir", runDir, "--json"], { quiet: true });
const audit = JSON.parse(
  step("audit", [seo, "audit", "--run-dir", runDir, "--severity", "medium", "--json"], { quiet: true }),
);
const score = JSON.parse(step("score", [seo, "score", "--run-dir", runDir, "--json"], { quiet: true }));

const s = audit.data.summary;
console.log(
  `\nExample site: ${s.pages} pages, ${s.findings} findings (high ${s.by_severity.high}, medium ${s.by_severity.medium}, low ${s.by_severity.low}); score ${score.data.score}/100 (${score.data.grade}).`,
);
for (const f of audit.data.items.slice(0, 10))
  console.log(
    `  ${f.severity.padEnd(6)} ${f.rule.padEnd(20)} ${f.url.replace("https://harbour.example", "")}  ${f.message}`,
  );
if (audit.meta.truncated) console.log(`  … ${audit.meta.truncation_hint}`);
const plan = JSON.parse(
  step("plan fixes (nothing is changed)", [seo, "plan", "--run-dir", runDir, "--json"], { quiet: true }),
);
console.log(
  `\nPlanned ${plan.data.items.length} fixes into ${plan.data.plan.replace(`${root}/`, "")}: ${[...new Set(plan.data.items.map((i: { action: string }) => i.action))].join(", ")}.`,
);
// A scratch gate for the copy: keys and a policy governing seo inside dist/example-site, made as a person would (gate init).
const setup = join(dist, "gate-setup");
rmSync(setup, { recursive: true, force: true });
const init = JSON.parse(
  step(
    "set up a gate for the copy (keys and a policy)",
    [join(dist, "gate"), "init", "--dir", setup, "--tool", "seo", "--root", `seo=${site}`, "--json"],
    { quiet: true },
  ),
);
const here = (line: string) => line.replaceAll(`${root}/`, "");
console.log(
  `  They edit dist/example-site, a copy. A gate for it is set up in ${here(setup)}/. Approve, apply and audit again (README: plan → gate → apply):\n`,
);
for (const line of [
  ...init.data.env.map(here),
  "dist/gate review --plan dist/example-run",
  "dist/seo apply --plan dist/example-run",
  "dist/seo crawl --dir dist/example-site --base-url https://harbour.example --run-dir dist/example-reaudit && dist/seo extract --run-dir dist/example-reaudit && dist/seo audit --run-dir dist/example-reaudit --severity medium",
])
  console.log(`    ${line}`);
console.log(
  `\nArtifacts in ${runDir.replace(`${root}/`, "")}/; try: dist/seo finding list --run-dir ${runDir.replace(`${root}/`, "")} --rule broken-link`,
);
