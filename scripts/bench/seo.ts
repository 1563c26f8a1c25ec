/**
 * seo's pipeline through compiled binaries, the working tree's ("new") beside
 * one built from git ("old": by default the commit before pages streamed
 * through the run dir; --baseline REF for another), in the same run:
 * crawl → extract → audit → score → plan over generated sites of 1,000 and
 * 100,000 pages (realistic pages: 20–100 KB of HTML each, a navigation bar,
 * a tree of links with neighbours and far pages, and some of what real sites
 * get wrong), each stage's wall time, pages/s, MB/s of HTML and peak RSS,
 * and the growth from 1,000 to 100,000 pages. Then the example site and the
 * PostgreSQL 15 manual (when installed), old and new.
 *
 *   bun scripts/bench/seo.ts [--pages 100000] [--rounds 3] [--baseline REF]
 *
 * The big site runs once per binary (its generation and run take minutes);
 * the small ones take the median of --rounds, the binaries taking turns.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { table } from "./measure.ts";
import { baselineSeo } from "./seo-baseline.ts";
import { generate } from "./seo-site.ts";
import { type Measured, type Site, STAGES, type Stage, sideBySide } from "./seo-stages.ts";

const root = join(import.meta.dir, "..", "..");
const seo = join(root, "dist", "seo");
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Math.min(5, Number(arg("--rounds")) || 3);
const BIG = Number(arg("--pages")) || 100_000;
const old = baselineSeo(arg("--baseline") ?? null);
console.log(`\n## seo: old (${old.commit.slice(0, 10)}, "${old.subject}…") and new (the working tree)`);
// The machine's load: wall times on a shared machine grow with it, CPU times much less.
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(", ");
console.log(`load average at the start: ${load()}`);
process.on("beforeExit", () => console.log(`\nload average at the end: ${load()}`));

type Row = Stage | "crawl+extract" | "all stages";
const ROWS: Row[] = [...STAGES, "crawl+extract", "all stages"];
const partsOf = (row: Row): readonly Stage[] =>
  row === "crawl+extract" ? ["crawl", "extract"] : row === "all stages" ? STAGES : [row];
const sumOf = (values: Partial<Record<Stage, number>>, row: Row): number | undefined => {
  const v = partsOf(row).map((s) => values[s]);
  return v.every((x) => x !== undefined) ? v.reduce((a, b) => a! + b!, 0) : undefined;
};
const msOf = (m: Measured, row: Row) => sumOf(m.ms, row);
const cpuOf = (m: Measured, row: Row) => sumOf(m.cpuMs, row);
const rssOf = (m: Measured, row: Row): number | undefined => {
  const rss = partsOf(row).map((s) => m.rss[s]);
  return rss.every((v) => v !== undefined) ? Math.max(...(rss as number[])) : undefined;
};

/** Per stage, each measured site's wall ms, CPU ms, pages/s, MB/s of HTML and peak RSS, side by side. */
function print(columns: { label: string; m: Measured }[]): void {
  const headers = ["stage", ...columns.flatMap((c) => [`${c.label}: ms`, "CPU ms", "pages/s", "MB/s", "peak RSS MB"])];
  const rows = ROWS.map((row) => [
    row,
    ...columns.flatMap(({ m }) => {
      const ms = msOf(m, row);
      const rss = rssOf(m, row);
      if (ms === undefined) return ["—", "—", "—", "—", "—"];
      const rate = m.htmlMb > 0 ? ((m.htmlMb / ms) * 1000).toFixed(1) : "—";
      const cpu = cpuOf(m, row)?.toFixed(0) ?? "?";
      return [ms.toFixed(0), cpu, ((m.pages / ms) * 1000).toFixed(0), rate, rss?.toFixed(0) ?? "?"];
    }),
  ]);
  console.log(table(headers, rows));
  for (const c of columns) if (c.m.failed) console.log(`(${c.label} cannot run this site: ${c.m.failed})`);
}

function timed<T>(label: string, fn: () => T): T {
  const t = performance.now();
  const out = fn();
  console.log(`${label}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return out;
}

const small = mkdtempSync(join(tmpdir(), "seo-bench-site-"));
const big = mkdtempSync(join(tmpdir(), "seo-bench-big-"));
try {
  const smallBytes = timed("generated the 1,000-page site", () => generate(small, 1000));
  const bigBytes = timed(`generated the ${BIG.toLocaleString("en")}-page site`, () => generate(big, BIG));
  console.log(
    `HTML: ${(smallBytes / 1e6).toFixed(0)} MB and ${(bigBytes / 1e6).toFixed(0)} MB (mean ${(bigBytes / BIG / 1000).toFixed(0)} KB a page)`,
  );
  const site = (dir: string, maxPages: number, htmlBytes: number): Site => ({
    dir,
    base: "https://gen.example/",
    maxPages,
    htmlBytes,
  });
  const [oldA, newA] = await sideBySide([old.binary, seo], site(small, 1000, smallBytes), rounds);
  const [oldB, newB] = await sideBySide([old.binary, seo], site(big, BIG, bigBytes), 1);
  console.log(`\n### ${newA!.pages} pages (median of ${rounds}, old and new taking turns)\n`);
  print([
    { label: "old", m: oldA! },
    { label: "new", m: newA! },
  ]);
  console.log(`\n### ${newB!.pages} pages (one run each)\n`);
  print([
    { label: "old", m: oldB! },
    { label: "new", m: newB! },
  ]);
  goals(newA!, newB!);
} finally {
  rmSync(small, { recursive: true, force: true });
  rmSync(big, { recursive: true, force: true });
}

/** The growth from the small site to the big one, and the goals on the big one (new). */
function goals(a: Measured, b: Measured): void {
  const times = (row: Row) => msOf(b, row)! / msOf(a, row)!;
  const cpuTimes = (row: Row) => cpuOf(b, row)! / cpuOf(a, row)!;
  const growth = (f: (r: Row) => number) => ROWS.map((r) => `${r} ${f(r).toFixed(0)}×`).join(", ");
  console.log(
    `\nnew, ${a.pages} → ${b.pages} pages (${(b.pages / a.pages).toFixed(0)}× the pages): wall time ${growth(times)} (goal ≤ 110× for crawl+extract: ${times("crawl+extract") <= 110 ? "met" : "not met"}); CPU time ${growth(cpuTimes)}`,
  );
  const peak = Math.max(b.rss.crawl ?? Infinity, b.rss.extract ?? Infinity);
  console.log(
    `new, peak RSS over ${b.pages} pages: crawl ${b.rss.crawl?.toFixed(0)} MB, extract ${b.rss.extract?.toFixed(0)} MB (goal ≤ 1,024 MB each: ${peak <= 1024 ? "met" : "not met"}), audit ${b.rss.audit?.toFixed(0)} MB, plan ${b.rss.plan?.toFixed(0)} MB`,
  );
  const rate = (b.htmlMb / msOf(b, "crawl+extract")!) * 1000;
  const perCpu = (b.htmlMb / cpuOf(b, "crawl+extract")!) * 1000;
  console.log(
    `new, crawl+extract over ${b.pages} pages: ${rate.toFixed(1)} MB/s of HTML (goal ≥ 30 MB/s on this machine: ${rate >= 30 ? "met" : "not met"}); ${perCpu.toFixed(1)} MB per CPU second`,
  );
}

/** A real site's folder, old and new side by side: ms and peak RSS per stage. */
async function folder(title: string, dir: string, base: string): Promise<void> {
  const copy = mkdtempSync(join(tmpdir(), "seo-bench-folder-"));
  cpSync(dir, copy, { recursive: true });
  try {
    const [o, n] = await sideBySide([old.binary, seo], { dir: copy, base, maxPages: 5000, htmlBytes: 0 }, rounds);
    console.log(`\n### ${title}: ${n!.pages} pages (median of ${rounds}; the processes' start-up is much of it)\n`);
    console.log(
      table(
        ["stage", "old ms", "new ms", "old peak RSS MB", "new peak RSS MB"],
        STAGES.map((s) => [
          s,
          o!.ms[s]?.toFixed(0) ?? "—",
          n!.ms[s]?.toFixed(0) ?? "—",
          o!.rss[s]?.toFixed(0) ?? "?",
          n!.rss[s]?.toFixed(0) ?? "?",
        ]),
      ),
    );
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

await folder("the example site", join(root, "examples", "site"), "https://harbour.example");
// A real manual no one here wrote, when Debian's postgresql-doc-15 is installed (the Lighthouse parity corpus).
const manual = "/usr/share/doc/postgresql-doc-15/html";
if (existsSync(manual))
  await folder("the PostgreSQL 15 manual (Debian postgresql-doc-15)", manual, "https://www.postgresql.org/docs/15/");
else
  console.log(`\n(the PostgreSQL 15 manual: skipped, ${manual} is not installed: apt-get install postgresql-doc-15)`);
