/**
 * Nothing stopped or skipped silently, through the compiled binaries: a crawl
 * cut by --max-pages says so; every finding in a plan's scope it cannot fix
 * is listed with its reason; a plan can be made for one finding or one page;
 * a plan not yet applied is never replaced unasked; a canonical that is not
 * http(s) is the high finding it is and weighs on the score; the page reads
 * answer from extract's index (and a run dir without one still reads); a
 * missing notes repository's hint is `git init`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, run } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { generateSite, removeWorkspaces, workspace } from "../helpers/mutation.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

const seo = (args: string[]) => run(binary("seo"), [...args, "--json"], { timeoutMs: 60_000 });

describe("a crawl stopped by --max-pages says so", () => {
  test("truncated, with a hint naming the flag and the pages found but not fetched", async () => {
    const ws = await workspace({ pages: 12, maxPages: 3 });
    const crawl = JSON.parse(readFileSync(join(ws.run, "crawl.json"), "utf8"));
    expect(crawl.data.pages_file.count).toBe(3);
    const r = await ws.seo(["crawl", "--dir", ws.site, "--max-pages", "3", "--run-dir", join(ws.dir, "cut")]);
    expect(r.code).toBe(0);
    expect(r.json.meta.truncated).toBe(true);
    expect(r.json.data.skipped["max-pages"]).toBe(9);
    expect(r.json.meta.truncation_hint).toContain("--max-pages");
    expect(r.json.meta.truncation_hint).toContain("9 more page(s)");
    const whole = await ws.seo(["crawl", "--dir", ws.site, "--max-pages", "12", "--run-dir", join(ws.dir, "whole")]);
    expect([whole.json.meta.truncated, whole.json.meta.truncation_hint]).toEqual([false, null]);
  });
});

describe("seo plan answers for every finding in its scope", () => {
  test("a broken link with no page close to its target is skipped with its reason, counted", async () => {
    const ws = await workspace({});
    const index = join(ws.site, "index.html");
    writeFileSync(index, readFileSync(index, "utf8").replace("</body>", '<a href="/qqqq-zzzz.html">gone</a></body>'));
    const runDir = join(ws.dir, "run2");
    for (const stage of [["crawl", "--dir", ws.site, "--base-url", "https://harbour.example"], ["extract"], ["audit"]])
      expect((await ws.seo([...stage, "--run-dir", runDir])).code).toBe(0);
    const r = await ws.seo(["plan", "--run-dir", runDir, "--only", "fix-broken-link"]);
    expect(r.code).toBe(0);
    expect(r.json.data.items.map((i: any) => i.action)).toEqual(["fix-broken-link"]);
    const gone = r.json.data.skipped.filter((s: any) => s.reason.includes("/qqqq-zzzz.html"));
    expect(gone).toHaveLength(1);
    expect(gone[0]).toMatchObject({ file: "index.html", action: "fix-broken-link" });
    expect(gone[0].reason).toContain("no page on the site is a clear match");
    expect(gone[0].finding).toMatch(/^f-/);
    expect(r.json.data.skipped_count.total).toBe(r.json.data.skipped.length);
    // The example site's own two links to pages that never existed were dropped silently too.
    expect(r.json.data.skipped.map((s: any) => s.reason.match(/match for (\S+):/)?.[1])).toEqual([
      "/blog/mending.html",
      "/catalogue-2023.html",
      "/qqqq-zzzz.html",
    ]);
    expect(r.json.data.skipped_count.by_action).toEqual({ "fix-broken-link": 3 });
  });

  test("--finding plans the one fix it names; --page one page's; an unknown id or page is NOT_FOUND", async () => {
    const ws = await workspace({});
    const list = await ws.seo(["finding", "list", "--run-dir", ws.run, "--rule", "broken-link"]);
    const id = list.json.data.items[0].id;
    const one = await ws.seo(["plan", "--run-dir", ws.run, "--finding", id]);
    expect(one.code).toBe(0);
    expect(one.json.data.items.map((i: any) => i.action)).toEqual(["fix-broken-link"]);
    const filesOf = (r: any) =>
      new Set(JSON.parse(readFileSync(r.json.data.plan, "utf8")).items.map((i: any) => i.params.file));
    const all = await ws.seo(["plan", "--run-dir", ws.run, "--force"]);
    expect(filesOf(all).size).toBeGreaterThan(1);
    const page = await ws.seo(["plan", "--run-dir", ws.run, "--force", "--page", "https://harbour.example/"]);
    expect(page.code).toBe(0);
    expect(filesOf(page)).toEqual(new Set(["index.html"]));
    const unknown = await ws.seo(["plan", "--run-dir", ws.run, "--force", "--finding", "f-000000000000"]);
    expect([unknown.code, unknown.json.error.code]).toEqual([3, "NOT_FOUND"]);
    const nowhere = await ws.seo(["plan", "--run-dir", ws.run, "--force", "--page", "https://harbour.example/nope"]);
    expect([nowhere.code, nowhere.json.error.code]).toEqual([3, "NOT_FOUND"]);
  });
});

describe("a plan not yet applied is never replaced unasked", () => {
  test("planning again is CONFLICT with a hint; --force replaces it; once applied it may be replaced", async () => {
    const ws = await workspace({});
    const first = await ws.seo(["plan", "--run-dir", ws.run]);
    expect(first.code).toBe(0);
    const again = await ws.seo(["plan", "--run-dir", ws.run, "--only", "set-lang"]);
    expect([again.code, again.json.error?.code]).toEqual([3, "CONFLICT"]);
    expect(again.json.error.hint).toContain("--force");
    expect(again.json.error.hint).toContain("--run-dir");
    expect(JSON.parse(readFileSync(join(ws.run, "plan.json"), "utf8")).checksum).toBe(first.json.data.checksum);
    const forced = await ws.seo(["plan", "--run-dir", ws.run, "--force"]);
    expect(forced.code).toBe(0);
    expect((await ws.gate(["review", "--plan", ws.run])).code).toBe(0);
    expect((await ws.seo(["apply", "--plan", ws.run])).code).toBe(0);
    for (const stage of [["crawl", "--dir", ws.site, "--base-url", "https://harbour.example"], ["extract"], ["audit"]])
      expect((await ws.seo([...stage, "--run-dir", ws.run])).code).toBe(0);
    expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
  });
});

describe("a canonical that is not http(s)", () => {
  test("is a high finding of its own, and costs the site at least 20 points", async () => {
    const dir = mkdtempSync(join(tmpdir(), "seo-canon-"));
    try {
      const scores: number[] = [];
      const grades: string[] = [];
      for (const href of ["https://gen.example/", "file:///usr/share/doc/gen/"]) {
        const site = join(dir, `site-${scores.length}`);
        generateSite(site, 8);
        for (const f of readdirSync(site))
          writeFileSync(join(site, f), readFileSync(join(site, f), "utf8").replace("https://gen.example/", href));
        const runDir = join(dir, `run-${scores.length}`);
        for (const stage of [["crawl", "--dir", site, "--base-url", "https://gen.example"], ["extract"], ["audit"]])
          expect((await seo([...stage, "--run-dir", runDir])).code).toBe(0);
        const score = await seo(["score", "--run-dir", runDir]);
        scores.push(score.json.data.score);
        grades.push(score.json.data.grade);
      }
      console.log(`score, http canonicals → file: canonicals: ${scores[0]} → ${scores[1]}`);
      expect(scores[0]! - scores[1]!).toBeGreaterThanOrEqual(20);
      expect(grades[1]).not.toBe("A");
      const found = await seo(["finding", "list", "--run-dir", join(dir, "run-1"), "--rule", "canonical-not-http"]);
      expect(found.json.data.items).toHaveLength(8);
      expect(found.json.data.items[0]).toMatchObject({ severity: "high", category: "indexability" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("page reads answer from extract's index", () => {
  test("extract writes it; a run dir without it still reads, and gets one", async () => {
    const ws = await workspace({ pages: 6 });
    const index = () => readdirSync(ws.run).find((f) => f.startsWith("extract.pages.") && f.endsWith(".index.json"));
    expect(index()).toBeDefined();
    const list = await ws.seo(["page", "list", "--run-dir", ws.run]);
    const get = await ws.seo(["page", "get", "--run-dir", ws.run, "--url", "https://gen.example/p3.html"]);
    const score = await ws.seo(["score", "--run-dir", ws.run]);
    rmSync(join(ws.run, index()!));
    const list2 = await ws.seo(["page", "list", "--run-dir", ws.run]);
    expect(list2.json.data).toEqual(list.json.data);
    expect(index()).toBeDefined();
    const get2 = await ws.seo(["page", "get", "--run-dir", ws.run, "--url", "https://gen.example/p3.html"]);
    expect(get2.json.data).toEqual(get.json.data);
    expect(get.json.data.page.title).toBe("Page 3 of the generated site");
    expect((await ws.seo(["score", "--run-dir", ws.run])).json.data).toMatchObject({ score: score.json.data.score });
  });
});

test("a notes repository that does not exist gets a `git init` hint", async () => {
  const missing = join(tmpdir(), `no-notes-${process.pid}-${Date.now()}`);
  const r = await run(binary("brain"), ["search", "--query", "x", "--repo", missing, "--json"]);
  expect([r.code, r.json.error.code]).toEqual([3, "INVALID_INPUT"]);
  expect(r.json.error.hint).toContain(`git init ${missing}`);
});
