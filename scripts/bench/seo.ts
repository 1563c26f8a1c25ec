/**
 * seo's pipeline over a generated 1,000-page local site and the example
 * site (and the PostgreSQL 15 manual, when installed): crawl → extract →
 * audit → score → plan through the compiled binary,
 * each stage's wall time (median of --rounds, at most 5) and peak RSS, and
 * pages per second for crawl + extract against the goal of 1,000.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, peakRssMb, runOnce, table, type Case } from "./measure.ts";

const root = join(import.meta.dir, "..", "..");
const seo = join(root, "dist", "seo");
const rounds = Math.min(5, Number(process.argv[process.argv.indexOf("--rounds") + 1]) || 3);
const WORDS = "harbour spade trowel hoe steel forge temper quench handle ash oak linseed soil compost winter spring harvest seed bed blade edge file angle rust oil shed boat".split(" ");

/** `pages` pages in a tree of folders, each with a title, a description, headings, a few paragraphs and links to its neighbours. */
function generate(dir: string, pages: number): void {
  let seed = 7;
  const word = () => WORDS[(seed = (seed * 1103515245 + 12345) & 0x7fffffff) % WORDS.length]!;
  const path = (i: number) => (i === 0 ? "index.html" : `s${i % 20}/p${i}.html`);
  for (let i = 0; i < pages; i++) {
    // A binary tree (every page within ten clicks) plus a neighbour and a far page.
    const links = [2 * i + 1, 2 * i + 2, i + 1, i * 31 + 7].map((j) => j % pages).map((j) => `<a href="/${path(j)}">${word()} ${word()}</a>`).join(" ");
    const paragraphs = Array.from({ length: 6 }, () => `<p>${Array.from({ length: 60 }, word).join(" ")}</p>`).join("\n");
    const file = join(dir, path(i));
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${word()} ${word()} page ${i}</title><meta name="description" content="About ${word()} and ${word()}, page ${i} of a generated site."><meta name="viewport" content="width=device-width, initial-scale=1"></head><body><h1>Page ${i}</h1>${paragraphs}<nav>${links}</nav></body></html>\n`);
  }
}

async function site(name: string, dir: string, base: string, maxPages: number, goal: boolean): Promise<void> {
  const stages: [string, string[]][] = [
    ["crawl", ["crawl", "--dir", dir, "--base-url", base, "--max-pages", String(maxPages), "--max-depth", "50"]],
    ["extract", ["extract"]],
    ["audit", ["audit"]],
    ["score", ["score"]],
    ["plan", ["plan"]],
  ];
  const times = new Map<string, number[]>();
  const rss = new Map<string, number | null>();
  let pages = 0;
  for (let r = 0; r < rounds; r++) {
    const run = mkdtempSync(join(tmpdir(), "seo-bench-run-"));
    for (const [stage, argv] of stages) {
      const c: Case = { name: stage, argv: [seo, ...argv, "--run-dir", run, "--json"] };
      const s = await runOnce(c);
      if (s.exitCode !== 0) throw new Error(`seo ${stage} exited ${s.exitCode}`);
      times.set(stage, [...(times.get(stage) ?? []), s.wallMs]);
      if (r === 0 && stage !== "crawl") rss.set(stage, peakRssMb(c));
    }
    if (r === 0) {
      pages = JSON.parse(await Bun.file(join(run, "crawl.json")).text()).data.pages.length;
      // Peak RSS of a crawl of its own, into a fresh run dir (a second crawl of the same dir would read nothing new).
      rss.set("crawl", peakRssMb({ name: "crawl", argv: [seo, ...stages[0]![1], "--run-dir", mkdtempSync(join(tmpdir(), "seo-bench-rss-")), "--json"] }));
    }
    rmSync(run, { recursive: true, force: true });
  }
  const ms = (stage: string) => median(times.get(stage)!);
  const rows = stages.map(([stage]) => [stage, ms(stage).toFixed(0), ((pages / ms(stage)) * 1000).toFixed(0), rss.get(stage)?.toFixed(0) ?? "?"]);
  const ce = ms("crawl") + ms("extract");
  console.log(`\n## seo over ${name}: ${pages} pages (median of ${rounds})\n`);
  console.log(table(["stage", "ms", "pages/s", "peak RSS MB"], rows));
  const rate = (pages / ce) * 1000;
  console.log(`\ncrawl + extract: ${rate.toFixed(0)} pages/s${goal ? ` (goal ≥ 1,000 on this machine size: ${rate >= 1000 ? "met" : "not met"})` : " (10 pages: the processes' start-up is most of it)"}`);
}

const generated = mkdtempSync(join(tmpdir(), "seo-bench-site-"));
generate(generated, 1000);
await site("a generated 1,000-page site", generated, "https://gen.example", 1000, true);
const example = mkdtempSync(join(tmpdir(), "seo-bench-example-"));
cpSync(join(root, "examples", "site"), example, { recursive: true });
await site("the example site", example, "https://harbour.example", 500, false);
// A real manual no one here wrote, when Debian's postgresql-doc-15 is installed (the Lighthouse parity corpus).
const manual = "/usr/share/doc/postgresql-doc-15/html";
if (existsSync(manual)) await site("the PostgreSQL 15 manual (Debian postgresql-doc-15)", manual, "https://www.example.org/docs/15/", 2000, true);
else console.log(`\n(the PostgreSQL 15 manual: skipped, ${manual} is not installed: apt-get install postgresql-doc-15)`);
rmSync(generated, { recursive: true, force: true });
rmSync(example, { recursive: true, force: true });
