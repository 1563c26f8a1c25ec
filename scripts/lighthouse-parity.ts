/**
 * seo against Lighthouse's SEO category, page × audit, on real sites served
 * on 127.0.0.1: the example site and the PostgreSQL 15 manual (Debian's
 * postgresql-doc-15). For every page seo crawls (up to --pages per site),
 * Lighthouse (npm `lighthouse`, in Debian's Chromium) judges each audit of
 * its SEO category; a pair counts where Lighthouse decides it (pass or fail,
 * not "not applicable" or "manual"). seo's verdict on a pair: a finding of
 * the rule with the audit's id on that page is a fail, none a pass.
 *
 * The third corpus is test/fixtures/seo-edges: one-case pages (cases.json
 * says what each is about). `--record` writes Lighthouse's verdict on each of
 * them, every audit (pass, fail or n/a), to its lighthouse.json, which
 * test/bin/seo-edges.test.ts holds seo to without Chromium.
 *
 *   bun scripts/lighthouse-parity.ts [--pages 40] [--only example|postgresql|edge] [--edges] [--record]
 *
 * (after `npm run build`; --only runs one corpus, --edges is --only edge).
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";

const root = join(import.meta.dir, "..");
const seo = join(root, "dist", "seo");
const lighthouse = join(root, "node_modules", ".bin", "lighthouse");
const CHROMIUM = "/usr/bin/chromium";
const CHROME_FLAGS =
  "--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync";
const pagesArg = Number(process.argv[process.argv.indexOf("--pages") + 1]) || 40;
const only = process.argv.includes("--edges")
  ? "edge"
  : process.argv.includes("--only")
    ? (process.argv[process.argv.indexOf("--only") + 1] ?? "").toLowerCase()
    : null;
const record = process.argv.includes("--record");
const EDGES = join(root, "test", "fixtures", "seo-edges");

const CORPORA = [
  { name: "example site (examples/site)", dir: join(root, "examples", "site") },
  { name: "PostgreSQL 15 manual (Debian postgresql-doc-15)", dir: "/usr/share/doc/postgresql-doc-15/html" },
  { name: "edge corpus (test/fixtures/seo-edges)", dir: EDGES },
].filter((c) => only === null || c.name.toLowerCase().startsWith(only));
/** Lighthouse's verdict on every audit of every edge page, for --record. */
const recorded: Record<string, Record<string, Verdict | "n/a">> = {};

/** A folder as a web server serves it: dir/ is dir/index.html; anything else missing is a 404. */
function serve(dir: string): { url: string; stop(): void } {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = decodeURIComponent(new URL(req.url).pathname);
      let file = normalize(join(dir, path));
      if (!file.startsWith(dir)) return new Response("no", { status: 403 });
      if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
      if (!existsSync(file))
        return new Response("<!doctype html><title>Not found</title><p>gone</p>", {
          status: 404,
          headers: { "content-type": "text/html" },
        });
      return new Response(Bun.file(file));
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, stop: () => server.stop(true) };
}

/** A child's JSON answer; asynchronous, so the server in this process keeps answering it. */
const json = async (argv: string[], opts: { allowFail?: boolean } = {}) => {
  const p = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", env: { ...process.env, CHROME_PATH: CHROMIUM } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0 && !(opts.allowFail && out.trimStart().startsWith("{")))
    throw new Error(`${argv.slice(0, 3).join(" ")} exited ${code}: ${err.slice(-300)}${out.slice(0, 300)}`);
  return JSON.parse(out);
};

type Verdict = "pass" | "fail";
type Decided = { id: string; verdict: Verdict | null; notApplicable: boolean; why: string };
interface Pair {
  site: string;
  page: string;
  audit: string;
  lighthouse: Verdict;
  seo: Verdict | null;
  why: string;
}

async function seoVerdicts(
  url: string,
  pages: number,
): Promise<{ pages: string[]; fails: Set<string>; rules: Set<string> }> {
  const run = mkdtempSync(join(tmpdir(), "parity-"));
  for (const stage of [["crawl", "--url", url, "--max-pages", String(pages)], ["extract"], ["audit"]])
    await json([seo, ...stage, "--run-dir", run, "--json"]);
  const extract = JSON.parse(readFileSync(join(run, "extract.json"), "utf8")).data as { pages_file: { file: string } };
  const crawled = readFileSync(join(run, extract.pages_file.file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { url: string });
  // audit.json names its findings file (an older seo's holds them inline).
  const audited = JSON.parse(readFileSync(join(run, "audit.json"), "utf8")).data;
  const audit: { findings: { rule: string; url: string }[] } = {
    findings:
      audited.findings ??
      readFileSync(join(run, audited.findings_file.file), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
  const describe = await json([seo, "audit", "--describe"]);
  const rules = new Set<string>(
    describe.commands.find((c: { name: string }) => c.name === "audit").input_schema.properties.rule?.enum ?? [],
  );
  return { pages: crawled.map((p) => p.url), fails: new Set(audit.findings.map((f) => `${f.url}\n${f.rule}`)), rules };
}

async function lighthouseAudits(page: string): Promise<Decided[]> {
  const lhr = await json(
    [
      lighthouse,
      page,
      "--only-categories=seo",
      "--output=json",
      "--output-path=stdout",
      "--quiet",
      `--chrome-flags=${CHROME_FLAGS}`,
    ],
    { allowFail: true },
  );
  // A page Lighthouse cannot load (a 404) has a runtime error and no decided audit.
  return lhr.categories.seo.auditRefs.map((ref: { id: string }) => {
    const a = lhr.audits[ref.id];
    const decided = a.scoreDisplayMode === "binary" && (a.score === 0 || a.score === 1);
    return {
      id: ref.id,
      verdict: decided ? (a.score === 1 ? "pass" : "fail") : null,
      notApplicable: a.scoreDisplayMode === "notApplicable",
      why: String(a.explanation ?? a.displayValue ?? a.title ?? "").slice(0, 120),
    };
  });
}

if (!existsSync(CHROMIUM)) throw new Error("Chromium is missing: apt-get install chromium");
const pairs: Pair[] = [];
const corpusRows: string[] = [];
for (const corpus of CORPORA) {
  if (!existsSync(corpus.dir)) {
    console.log(`skipped ${corpus.name}: ${corpus.dir} is absent (apt-get install postgresql-doc-15)`);
    continue;
  }
  const server = serve(corpus.dir);
  try {
    const s = await seoVerdicts(server.url, pagesArg);
    const before = pairs.length;
    for (const page of s.pages) {
      const audits = await lighthouseAudits(page);
      if (corpus.dir === EDGES) {
        const file = page.replace(server.url, "") || "index.html";
        recorded[file] = Object.fromEntries(
          audits.filter((a) => a.verdict !== null || a.notApplicable).map((a) => [a.id, a.verdict ?? "n/a"]),
        );
      }
      for (const a of audits) {
        if (a.verdict === null) continue;
        const seoVerdict = s.rules.has(a.id) ? (s.fails.has(`${page}\n${a.id}`) ? "fail" : "pass") : null;
        pairs.push({
          site: corpus.name,
          page: page.replace(server.url, "/"),
          audit: a.id,
          lighthouse: a.verdict,
          seo: seoVerdict,
          why: a.why,
        });
      }
      process.stderr.write(".");
    }
    corpusRows.push(`| ${corpus.name} | ${s.pages.length} | ${pairs.length - before} |`);
  } finally {
    server.stop();
  }
}
process.stderr.write("\n");

const audits = [...new Set(pairs.map((p) => p.audit))].sort();
const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : "—");
console.log("\n| corpus | pages | page × audit pairs Lighthouse decides |\n|---|---|---|");
for (const r of corpusRows) console.log(r);
console.log(
  "\n| audit | pairs decided | agree | Lighthouse fails, seo passes | Lighthouse passes, seo fails | agreement |\n|---|---|---|---|---|---|",
);
for (const id of audits) {
  const ps = pairs.filter((p) => p.audit === id);
  if (ps.every((p) => p.seo === null)) {
    console.log(`| \`${id}\` | ${ps.length} | — | — | — | no seo rule of this id |`);
    continue;
  }
  const agree = ps.filter((p) => p.seo === p.lighthouse).length;
  console.log(
    `| \`${id}\` | ${ps.length} | ${agree} | ${ps.filter((p) => p.lighthouse === "fail" && p.seo === "pass").length} | ${ps.filter((p) => p.lighthouse === "pass" && p.seo === "fail").length} | ${pct(agree, ps.length)} |`,
  );
}
const judged = pairs.filter((p) => p.seo !== null);
const agreed = judged.filter((p) => p.seo === p.lighthouse).length;
console.log(`\nall audits seo implements: ${agreed} of ${judged.length} pairs agree (${pct(agreed, judged.length)})`);
const differ = judged.filter((p) => p.seo !== p.lighthouse);
if (differ.length) {
  console.log("\nwhere they differ:");
  for (const p of differ.slice(0, 40))
    console.log(`  ${p.audit} ${p.page}: Lighthouse ${p.lighthouse}, seo ${p.seo} (${p.why})`);
}

if (record) {
  const sorted = Object.fromEntries(
    Object.keys(recorded)
      .sort()
      .map((k) => [k, Object.fromEntries(Object.entries(recorded[k]!).sort())]),
  );
  const lighthouseVersion = JSON.parse(
    readFileSync(join(root, "node_modules", "lighthouse", "package.json"), "utf8"),
  ).version;
  writeFileSync(
    join(EDGES, "lighthouse.json"),
    `${JSON.stringify({ lighthouse: lighthouseVersion, verdicts: sorted }, null, 2)}\n`,
  );
  console.log(
    `\nrecorded Lighthouse ${lighthouseVersion}'s verdicts on ${Object.keys(sorted).length} edge pages in ${join(EDGES, "lighthouse.json")}`,
  );
}
