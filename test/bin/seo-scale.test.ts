/**
 * seo at scale: stages stream pages through NDJSON files beside their
 * artifacts (named by hash, checked as they are read), --max-pages reaches
 * a million, and the lists and lookups still work over the streamed pages.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, run } from "../helpers/bin.ts";

const seo = binary("seo");
const fresh = () => mkdtempSync(join(tmpdir(), "seo-scale-"));
const PAGES = 300;

let site: string;
let runDir: string;
beforeAll(async () => {
  site = fresh();
  for (let i = 0; i < PAGES; i++) {
    const links = [2 * i + 1, 2 * i + 2]
      .filter((j) => j < PAGES)
      .map((j) => `<a href="/d${j % 7}/p${j}.html">Page number ${j}</a>`)
      .join(" ");
    const file = i === 0 ? join(site, "index.html") : join(site, `d${i % 7}`, `p${i}.html`);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(
      file,
      `<!doctype html><html lang="en"><head><title>Generated page number ${i}</title></head><body><h1>Page ${i}</h1><p>Words about page ${i}.</p>${links}</body></html>`,
    );
  }
  runDir = fresh();
  for (const stage of [
    ["crawl", "--dir", site, "--base-url", "https://scale.example/", "--max-pages", "1000000", "--max-depth", "50"],
    ["extract"],
    ["audit"],
    ["score"],
  ]) {
    const r = await run(seo, [...stage, "--run-dir", runDir, "--json"]);
    expect(r.code).toBe(0);
  }
}, 120_000);

describe("a site's pages stream through the run dir", () => {
  test("--max-pages takes a million, and every page is crawled, extracted and scored", async () => {
    const crawl = JSON.parse(readFileSync(join(runDir, "crawl.json"), "utf8")).data;
    const extract = JSON.parse(readFileSync(join(runDir, "extract.json"), "utf8")).data;
    expect([crawl.pages_file.count, extract.pages_file.count, extract.page_count]).toEqual([PAGES, PAGES, PAGES]);
    expect(crawl.pages).toBeUndefined(); // not inline: the artifact stays small
    const lines = readFileSync(join(runDir, extract.pages_file.file), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(PAGES);
    expect(JSON.parse(readFileSync(join(runDir, "score.json"), "utf8")).data.score).toBeGreaterThan(0);
  });

  test("page list pages through every page once, and page get finds the last one", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await run(seo, [
        "page",
        "list",
        "--run-dir",
        runDir,
        "--limit",
        "250",
        ...(cursor ? ["--cursor", cursor] : []),
        "--json",
      ]);
      seen.push(...r.json.data.items.map((i: any) => i.url));
      cursor = r.json.meta.pagination.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(PAGES);
    const last = await run(seo, [
      "page",
      "get",
      "--url",
      `https://scale.example/d${(PAGES - 1) % 7}/p${PAGES - 1}.html`,
      "--run-dir",
      runDir,
      "--json",
    ]);
    expect(last.json.data.page.title).toBe(`Generated page number ${PAGES - 1}`);
  });

  test("a crawl again into the same run dir leaves one pages file per stage", async () => {
    const again = await run(seo, [
      "crawl",
      "--dir",
      site,
      "--base-url",
      "https://scale.example/",
      "--max-pages",
      "10",
      "--run-dir",
      runDir,
      "--json",
    ]);
    expect(again.code).toBe(0);
    expect(readdirSync(runDir).filter((f) => f.startsWith("crawl.pages."))).toHaveLength(1);
    expect(readdirSync(runDir).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });
});

describe("a pages file that does not match its artifact", () => {
  for (const [what, damage] of [
    [
      "changed",
      (text: string) => text.replace('"title":"Generated page number 3"', '"title":"Generated page number X"'),
    ],
    ["cut short", (text: string) => text.slice(0, text.length >> 1).replace(/\n[^\n]*$/, "\n")],
  ] as const)
    test(`${what}: INVALID_ARTIFACT naming the stage to run again, and no artifact written from it`, async () => {
      const dir = fresh();
      for (const stage of [["crawl", "--dir", site, "--base-url", "https://scale.example/", "--max-pages", "50"]])
        expect((await run(seo, [...stage, "--run-dir", dir])).code).toBe(0);
      const crawl = JSON.parse(readFileSync(join(dir, "crawl.json"), "utf8")).data;
      const file = join(dir, crawl.pages_file.file);
      writeFileSync(file, damage(readFileSync(file, "utf8")));
      const r = await run(seo, ["extract", "--run-dir", dir, "--json"]);
      expect([r.code, r.json.error.code]).toEqual([3, "INVALID_ARTIFACT"]);
      expect(r.json.error.hint).toContain("seo crawl");
      expect(readdirSync(dir).filter((f) => f.startsWith("extract"))).toEqual([]);
    });

  test("missing: INVALID_ARTIFACT", async () => {
    const dir = fresh();
    expect((await run(seo, ["crawl", "--dir", site, "--max-pages", "5", "--run-dir", dir])).code).toBe(0);
    const crawl = JSON.parse(readFileSync(join(dir, "crawl.json"), "utf8")).data;
    Bun.spawnSync(["rm", join(dir, crawl.pages_file.file)]);
    const r = await run(seo, ["extract", "--run-dir", dir, "--json"]);
    expect([r.code, r.json.error.code]).toEqual([3, "INVALID_ARTIFACT"]);
  });
});
