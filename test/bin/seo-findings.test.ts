/**
 * The audit's findings stream through the run dir: an NDJSON file beside
 * audit.json, a section per rule (worst first, each with its own sha256),
 * named by its hash and checked as it is read. finding list/get, page
 * list/get, score and plan read it in bounded memory; plan reads each
 * section beside the pages, and plans exactly what it plans from an older
 * audit.json that holds its findings inline. Real binaries, a real folder.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { editDistance, nearest } from "agent-cli-kit";
import { BrokenTargets, distanceAtMost3 } from "../../tools/seo/lib/broken-targets.ts";
import { binary, run } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const seo = (args: string[]) => run(binary("seo"), [...args, "--json"], { timeoutMs: 120_000 });
const fresh = () => mkdtempSync(join(tmpdir(), "seo-findings-"));
const PAGES = 150;

/** A site with what real sites get wrong, many times over: every fix kind, and findings of many rules. */
function writeSite(dir: string): void {
  const path = (i: number) => (i === 0 ? "index.html" : `d${i % 5}/p${i}.html`);
  for (let i = 0; i < PAGES; i++) {
    const links = [2 * i + 1, 2 * i + 2, i + 1]
      .filter((j) => j < PAGES)
      .map((j) => `<a href="/${path(j)}">Page number ${j}</a>`);
    if (i % 30 === 4) links.push(`<a href="/${path(i + 1).replace(/html$/, "htlm")}">next</a>`);
    if (i % 17 === 5) links.push(`<a href="/gone-${i}.html">click here</a>`);
    const head = [
      '<meta charset="utf-8">',
      `<title>${i % 20 === 7 ? "The same title on several pages" : `Generated page number ${i}`}</title>`,
      i % 6 === 1
        ? ""
        : `<meta name="description" content="Page ${i} of the findings test site, about tools, boats and the tides of the old harbour.">`,
      i % 7 === 2 ? "" : '<meta name="viewport" content="width=device-width, initial-scale=1">',
      i % 8 === 3 ? "" : `<link rel="canonical" href="https://find.example/${path(i).replace(/index\.html$/, "")}">`,
    ].join("\n");
    const file = join(dir, path(i));
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(
      file,
      `<!doctype html>\n<html${i % 9 === 4 ? "" : ' lang="en"'}>\n<head>\n${head}\n</head>\n<body>\n<main><h1>Page ${i}</h1><p>Page ${i} of the site tells of the harbour, its boats and its tools, for visitors who come in the ${i % 2 ? "summer" : "winter"} season. The tides turn twice a day.</p>${links.join(" ")}</main>\n</body>\n</html>\n`,
    );
  }
}

const artifact = (dir: string, name: string) => JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8"));
const lines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const findingsOf = (dir: string): any[] => lines(join(dir, artifact(dir, "audit").data.findings_file.file));

let site: string;
let runDir: string;
let summary: any;
beforeAll(async () => {
  site = fresh();
  writeSite(site);
  runDir = fresh();
  for (const stage of [
    ["crawl", "--dir", site, "--base-url", "https://find.example/", "--max-pages", "1000", "--max-depth", "50"],
    ["extract"],
    ["audit"],
  ]) {
    const r = await seo([...stage, "--run-dir", runDir]);
    expect(r.json.error).toBeNull();
    if (stage[0] === "audit") summary = r.json.data.summary;
  }
}, SLOW_HOOK);

/** Every item of a list, page after page by its cursors. */
async function everyItem(argv: string[], limit: number): Promise<any[]> {
  const seen: any[] = [];
  let cursor: string | null = null;
  do {
    const r: any = await seo([...argv, "--limit", String(limit), ...(cursor ? ["--cursor", cursor] : [])]);
    expect(r.json.error).toBeNull();
    seen.push(...r.json.data.items);
    cursor = r.json.meta.pagination.next_cursor;
  } while (cursor);
  return seen;
}

describe("the findings file", () => {
  test("audit.json names it with a section per rule, worst first, each hashed; no findings inline", () => {
    const audit = artifact(runDir, "audit").data;
    expect(audit.findings).toBeUndefined();
    const file = audit.findings_file;
    const all = findingsOf(runDir);
    expect(all.length).toBe(summary.findings);
    expect(file.count).toBe(all.length);
    const bytes = readFileSync(join(runDir, file.file));
    expect(`sha256:${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}`).toBe(file.sha256);
    expect(file.sections.map((s: any) => s.rule)).toEqual(Object.keys(summary.by_rule));
    let at = 0;
    for (const s of file.sections) {
      expect(s.offset).toBe(at);
      const part = bytes.subarray(s.offset, s.offset + s.bytes);
      expect(`sha256:${new Bun.CryptoHasher("sha256").update(part).digest("hex")}`).toBe(s.sha256);
      const inSection = part
        .toString("utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(inSection.every((f: any) => f.rule === s.rule)).toBe(true);
      expect([inSection.length, new Set(inSection.map((f: any) => f.url)).size]).toEqual([s.count, s.pages]);
      at += s.bytes;
    }
    expect(at).toBe(bytes.length);
    expect(new Set(all.map((f) => f.id)).size).toBe(all.length);
  });

  test("finding list pages through every finding once, in the file's order, filters as the file says", async () => {
    const all = findingsOf(runDir);
    expect((await everyItem(["finding", "list", "--run-dir", runDir], 7)).map((f) => f.id)).toEqual(
      all.map((f) => f.id),
    );
    const medium = await everyItem(["finding", "list", "--run-dir", runDir, "--severity", "medium"], 50);
    expect(medium.map((f) => f.id)).toEqual(all.filter((f) => f.severity !== "low").map((f) => f.id));
    const broken = await everyItem(["finding", "list", "--run-dir", runDir, "--rule", "broken-link"], 3);
    expect(broken.map((f) => f.id)).toEqual(all.filter((f) => f.rule === "broken-link").map((f) => f.id));
    const url = "https://find.example/d4/p4.html";
    const onPage = await everyItem(["finding", "list", "--run-dir", runDir, "--url", url], 2);
    expect(onPage.map((f) => f.id)).toEqual(all.filter((f) => f.url === url).map((f) => f.id));
    expect(onPage.length).toBeGreaterThan(2);
  });

  test("finding get finds the last finding; a near miss gets a did-you-mean", async () => {
    const last = findingsOf(runDir).at(-1);
    expect((await seo(["finding", "get", "--id", last.id, "--run-dir", runDir])).json.data.finding).toEqual(last);
    const miss = await seo(["finding", "get", "--id", `${last.id.slice(0, -1)}x`, "--run-dir", runDir]);
    expect(miss.json.error.code).toBe("NOT_FOUND");
    expect(miss.json.error.hint).toContain("did you mean");
  });

  test("page list counts each page's findings, page get lists them", async () => {
    const all = findingsOf(runDir);
    const rows = await everyItem(["page", "list", "--run-dir", runDir], 40);
    expect(rows.length).toBe(PAGES + all.filter((f) => f.rule === "http-status-code").length);
    for (const row of rows) expect(row.findings).toBe(all.filter((f) => f.url === row.url).length);
    const url = "https://find.example/d4/p4.html";
    const got = await seo(["page", "get", "--url", url, "--run-dir", runDir]);
    expect(got.json.data.findings).toEqual(all.filter((f) => f.url === url));
  });
});

/** A copy of the audited run dir whose audit.json holds its findings inline, as an older seo wrote it. */
function inlineCopy(): string {
  const copy = fresh();
  cpSync(runDir, copy, { recursive: true });
  const audit = artifact(copy, "audit");
  audit.data.findings = findingsOf(copy);
  delete audit.data.findings_file;
  delete audit.data.extract_pages;
  writeFileSync(join(copy, "audit.json"), JSON.stringify(audit));
  return copy;
}

describe("plan and score read the findings beside the pages", () => {
  test("plan plans exactly what it plans from an older audit.json holding the findings inline; score scores the same", async () => {
    const copy = inlineCopy();
    for (const dir of [runDir, copy]) {
      for (const stage of [["plan"], ["score"]])
        expect((await seo([...stage, "--run-dir", dir])).json.error).toBeNull();
    }
    const items = (dir: string) =>
      artifact(dir, "plan").items.map(({ action, params, reason }: any) => ({ action, params, reason }));
    const streamed = items(runDir);
    expect(new Set(streamed.map((i: any) => i.action))).toEqual(
      new Set(["set-lang", "add-viewport", "add-canonical", "add-meta-description", "fix-broken-link"]),
    );
    expect(streamed).toEqual(items(copy));
    expect(artifact(runDir, "score").data).toEqual(artifact(copy, "score").data);
  });

  test("an audit of other pages than extract.json's: plan refuses it (INVALID_ARTIFACT naming audit)", async () => {
    const dir = fresh();
    cpSync(runDir, dir, { recursive: true });
    for (const stage of [
      ["crawl", "--dir", site, "--base-url", "https://find.example/", "--max-pages", "40"],
      ["extract"],
    ])
      expect((await seo([...stage, "--run-dir", dir])).json.error).toBeNull();
    const r = await seo(["plan", "--run-dir", dir]);
    expect([r.code, r.json.error?.code]).toEqual([3, "INVALID_ARTIFACT"]);
    expect(r.json.error.message).toContain("made from other pages than extract.json's");
    expect(r.json.error.hint).toContain("seo audit");
  });
});

describe("a findings file that does not match audit.json", () => {
  for (const [what, damage] of [
    ["changed", (t: string) => t.replaceAll("find.example", "find.exampla")],
    ["cut short", (t: string) => t.slice(0, t.length >> 1).replace(/\n[^\n]*$/, "\n")],
  ] as const)
    test(`${what}: every reader says INVALID_ARTIFACT, naming audit to run again`, async () => {
      const dir = fresh();
      cpSync(runDir, dir, { recursive: true });
      const file = join(dir, artifact(dir, "audit").data.findings_file.file);
      writeFileSync(file, damage(readFileSync(file, "utf8")));
      for (const argv of [
        ["finding", "list", "--limit", "1000"],
        ["page", "get", "--url", "https://find.example/"],
        ["plan"],
      ]) {
        const r = await seo([...argv, "--run-dir", dir]);
        expect({ argv, code: r.json.error?.code }).toEqual({ argv, code: "INVALID_ARTIFACT" });
        expect(r.json.error.hint).toContain("seo audit");
      }
    });

  test("missing: INVALID_ARTIFACT", async () => {
    const dir = fresh();
    cpSync(runDir, dir, { recursive: true });
    for (const f of readdirSync(dir)) if (f.startsWith("audit.findings.")) Bun.spawnSync(["rm", join(dir, f)]);
    const r = await seo(["finding", "list", "--run-dir", dir]);
    expect(r.json.error.code).toBe("INVALID_ARTIFACT");
  });

  test("an audit of other pages into the run dir leaves one findings file, its own, and no spills", async () => {
    const dir = fresh();
    cpSync(runDir, dir, { recursive: true });
    for (const stage of [
      ["crawl", "--dir", site, "--base-url", "https://find.example/", "--max-pages", "40"],
      ["extract"],
      ["audit"],
    ])
      expect((await seo([...stage, "--run-dir", dir])).json.error).toBeNull();
    expect(artifact(dir, "audit").data.findings_file.file).not.toBe(artifact(runDir, "audit").data.findings_file.file);
    expect(readdirSync(dir).filter((f) => f.startsWith("audit.findings."))).toHaveLength(1);
    expect(readdirSync(dir).filter((f) => f.includes(".tmp-") || f.includes("spill"))).toEqual([]);
  });
});

describe("where a broken link should point, found streaming", () => {
  // Paths over a few characters, so typos, transpositions and ties are common.
  const path = fc.string({ unit: fc.constantFrom("a", "b", "/", ".", "1", "2"), maxLength: 12 });

  test("the bounded distance is the kit's editDistance up to 3, and 4 beyond", () => {
    fc.assert(
      fc.property(path, path, (a, b) => distanceAtMost3(a, b) === Math.min(editDistance(a, b), 4)),
      { numRuns: 20_000, seed: 32 },
    );
  });

  test("the target is what nearest over every path picks, when no other path is as close (at most 3 edits)", () => {
    /** The rule as written over the whole list of the site's paths. */
    const whole = (broken: string, paths: string[]): string | null => {
      const target = nearest(broken, paths);
      const scored = paths.map((c) => [c, editDistance(broken, c)] as const).sort((x, y) => x[1] - y[1]);
      const best = !scored[0] || scored[0][1] > 3 || (scored[1] && scored[1][1] === scored[0][1]) ? null : scored[0][0];
      return target !== undefined && best === target ? target : null;
    };
    fc.assert(
      fc.property(
        fc.array(path, { maxLength: 30 }),
        fc.array(path, { minLength: 1, maxLength: 4 }),
        (paths, broken) => {
          const targets = new BrokenTargets();
          for (const b of broken) targets.want(b);
          for (const p of paths) targets.offer(p);
          return broken.every((b) => targets.target(b) === whole(b, paths));
        },
      ),
      { numRuns: 5_000, seed: 32 },
    );
  });
});
