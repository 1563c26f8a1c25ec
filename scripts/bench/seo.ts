/**
 * seo's pipeline through the compiled binary: crawl → extract → audit →
 * score → plan over generated sites of 1,000 and 100,000 pages (realistic
 * pages: 20–100 KB of HTML each, a navigation bar, a tree of links with
 * neighbours and far pages), side by side: each stage's wall time, pages/s,
 * MB/s of HTML and peak RSS, and the growth from 1,000 to 100,000 pages.
 * Then the example site (and the PostgreSQL 15 manual, when installed).
 *
 *   bun scripts/bench/seo.ts [--pages 100000] [--rounds 3]
 *
 * The big site runs once (its generation and run take minutes); the small
 * ones take the median of --rounds.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, table } from "./measure.ts";
import { generate } from "./seo-site.ts";

const root = join(import.meta.dir, "..", "..");
const seo = join(root, "dist", "seo");
const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const rounds = Math.min(5, arg("--rounds", 3));
const BIG = arg("--pages", 100_000);
/** One run of a stage: wall time, and peak RSS by GNU time (a child's rusage from Bun counts the parent's pages). */
async function stageRun(argv: string[]): Promise<{ ms: number; rssMb: number | null }> {
  const time = "/usr/bin/time";
  const withTime = Bun.which(time) ? [time, "-f", "%M", ...argv] : argv;
  const t = performance.now();
  const p = Bun.spawn(withTime, { stdout: "ignore", stderr: "pipe", stdin: "ignore" });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  const ms = performance.now() - t;
  if (code !== 0) throw new Error(`${argv.slice(1, 3).join(" ")} exited ${code}: ${err.slice(-400)}`);
  const kb = Number(err.trim().split("\n").at(-1));
  return { ms, rssMb: Bun.which(time) && Number.isFinite(kb) ? kb / 1024 : null };
}

const STAGES = ["crawl", "extract", "audit", "score", "plan"] as const;
type Stage = (typeof STAGES)[number];
interface Measured {
  name: string;
  pages: number;
  htmlMb: number;
  ms: Record<Stage, number>;
  rss: Record<Stage, number | null>;
}

async function measure(
  name: string,
  dir: string,
  base: string,
  maxPages: number,
  htmlBytes: number,
  times: number,
): Promise<Measured> {
  const argv: Record<Stage, string[]> = {
    crawl: ["crawl", "--dir", dir, "--base-url", base, "--max-pages", String(maxPages), "--max-depth", "50"],
    extract: ["extract"],
    audit: ["audit"],
    score: ["score"],
    plan: ["plan"],
  };
  const ms = Object.fromEntries(STAGES.map((s) => [s, [] as number[]])) as Record<Stage, number[]>;
  const rss = Object.fromEntries(STAGES.map((s) => [s, null])) as Record<Stage, number | null>;
  let pages = 0;
  for (let r = 0; r < times; r++) {
    const run = mkdtempSync(join(tmpdir(), "seo-bench-run-"));
    for (const stage of STAGES) {
      const out = await stageRun([seo, ...argv[stage], "--run-dir", run, "--json"]);
      ms[stage].push(out.ms);
      rss[stage] = Math.max(rss[stage] ?? 0, out.rssMb ?? 0) || null;
    }
    pages = JSON.parse(await Bun.file(join(run, "crawl.json")).text()).data.pages_file.count;
    rmSync(run, { recursive: true, force: true });
  }
  return {
    name,
    pages,
    htmlMb: htmlBytes / 1024 / 1024,
    ms: Object.fromEntries(STAGES.map((s) => [s, median(ms[s])])) as Record<Stage, number>,
    rss,
  };
}

/** Sites side by side: per stage, ms, pages/s, MB/s of HTML and peak RSS of each. */
function sideBySide(sites: readonly Measured[]): void {
  const headers = ["stage", ...sites.flatMap((s) => [`${s.pages} p: ms`, "pages/s", "MB/s", "RSS MB"])];
  const rows = [...STAGES, "crawl+extract"].map((stage) => [
    stage,
    ...sites.flatMap((s) => {
      const ms = stage === "crawl+extract" ? s.ms.crawl + s.ms.extract : s.ms[stage as Stage];
      const rss = stage === "crawl+extract" ? Math.max(s.rss.crawl ?? 0, s.rss.extract ?? 0) : s.rss[stage as Stage];
      return [
        ms.toFixed(0),
        ((s.pages / ms) * 1000).toFixed(0),
        ((s.htmlMb / ms) * 1000).toFixed(1),
        rss?.toFixed(0) ?? "?",
      ];
    }),
  ]);
  console.log(table(headers, rows));
}

function time<T>(label: string, fn: () => T): T {
  const t = performance.now();
  const out = fn();
  console.log(`${label}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return out;
}

const small = mkdtempSync(join(tmpdir(), "seo-bench-site-"));
const big = mkdtempSync(join(tmpdir(), "seo-bench-big-"));
try {
  const smallBytes = time("generated the 1,000-page site", () => generate(small, 1000));
  const bigBytes = time(`generated the ${BIG.toLocaleString("en")}-page site`, () => generate(big, BIG));
  console.log(
    `HTML: ${(smallBytes / 1e6).toFixed(0)} MB and ${(bigBytes / 1e6).toFixed(0)} MB (mean ${(bigBytes / BIG / 1000).toFixed(0)} KB a page)`,
  );
  const a = await measure("1,000 pages", small, "https://gen.example/", 1000, smallBytes, rounds);
  const b = await measure(`${BIG} pages`, big, "https://gen.example/", BIG, bigBytes, 1);
  console.log(`\n## seo over generated sites: ${a.pages} pages (median of ${rounds}) and ${b.pages} pages (one run)\n`);
  sideBySide([a, b]);
  const ce = (m: Measured) => m.ms.crawl + m.ms.extract;
  const total = (m: Measured) => STAGES.reduce((n, s) => n + m.ms[s], 0);
  const growth = ce(b) / ce(a);
  const peak = Math.max(b.rss.crawl ?? 0, b.rss.extract ?? 0);
  const rate = (b.htmlMb / ce(b)) * 1000;
  console.log(
    `\n${a.pages} → ${b.pages} pages (${(b.pages / a.pages).toFixed(0)}×): crawl+extract ${growth.toFixed(0)}× the time (goal ≤ 110×: ${growth <= 110 ? "met" : "not met"}), all stages ${(total(b) / total(a)).toFixed(0)}×`,
  );
  console.log(
    `crawl and extract peak RSS over ${b.pages} pages: ${b.rss.crawl?.toFixed(0)} MB and ${b.rss.extract?.toFixed(0)} MB (goal ≤ 1,024 MB each: ${peak > 0 && peak <= 1024 ? "met" : "not met"})`,
  );
  console.log(
    `crawl+extract over ${b.pages} pages: ${rate.toFixed(1)} MB/s of HTML (goal ≥ 30 MB/s on this machine: ${rate >= 30 ? "met" : "not met"})`,
  );
} finally {
  rmSync(small, { recursive: true, force: true });
  rmSync(big, { recursive: true, force: true });
}

const example = mkdtempSync(join(tmpdir(), "seo-bench-example-"));
cpSync(join(root, "examples", "site"), example, { recursive: true });
const ex = await measure("the example site", example, "https://harbour.example", 500, 0, rounds);
console.log(
  `\n## seo over the example site: ${ex.pages} pages (median of ${rounds}; the processes' start-up is most of it)\n`,
);
console.log(
  table(
    ["stage", "ms", "peak RSS MB"],
    STAGES.map((s) => [s, ex.ms[s].toFixed(0), ex.rss[s]?.toFixed(0) ?? "?"]),
  ),
);
rmSync(example, { recursive: true, force: true });
// A real manual no one here wrote, when Debian's postgresql-doc-15 is installed (the Lighthouse parity corpus).
const manual = "/usr/share/doc/postgresql-doc-15/html";
if (existsSync(manual)) {
  const m = await measure("the PostgreSQL 15 manual", manual, "https://www.example.org/docs/15/", 2000, 0, rounds);
  console.log(`\n## seo over the PostgreSQL 15 manual (Debian postgresql-doc-15): ${m.pages} pages\n`);
  console.log(
    table(
      ["stage", "ms", "pages/s", "peak RSS MB"],
      STAGES.map((s) => [s, m.ms[s].toFixed(0), ((m.pages / m.ms[s]) * 1000).toFixed(0), m.rss[s]?.toFixed(0) ?? "?"]),
    ),
  );
} else
  console.log(`\n(the PostgreSQL 15 manual: skipped, ${manual} is not installed: apt-get install postgresql-doc-15)`);
