/**
 * Nothing is dropped without saying so: every link of a page is judged, and a
 * page larger than --max-body-bytes is a finding naming the page, its size and
 * the limit, not a silent cut.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, run } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const seo = binary("seo");
const fresh = () => mkdtempSync(join(tmpdir(), "seo-limits-"));
const words = "Enough words about the subject of this page to not be thin content at all. ".repeat(8);
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title><meta name="viewport" content="width=device-width"></head><body><h1>${title}</h1><p>${words}</p>${body}</body></html>`;

async function audited(argv: string[]) {
  const dir = fresh();
  const crawl = await run(seo, ["crawl", ...argv, "--run-dir", dir, "--json"]);
  expect(crawl.code).toBe(0);
  for (const stage of [["extract"], ["audit"]]) expect((await run(seo, [...stage, "--run-dir", dir])).code).toBe(0);
  const findings = await run(seo, ["finding", "list", "--run-dir", dir, "--limit", "1000", "--json"]);
  return { dir, crawl: crawl.json.data, findings: findings.json.data.items as any[] };
}

describe("a page with 20,000 links", () => {
  let site: string;
  beforeAll(() => {
    site = fresh();
    const links = Array.from({ length: 20_000 }, (_, i) =>
      i === 14_999
        ? `<a href="/missing.html">Where it went</a>`
        : i === 1_100
          ? `<a href="/p3.html">click here</a>`
          : `<a href="/p${i % 10}.html">Page ${i % 10}</a>`,
    ).join("\n");
    writeFileSync(join(site, "index.html"), page("A page of very many links", links));
    for (let i = 0; i < 10; i++) writeFileSync(join(site, `p${i}.html`), page(`Linked page number ${i}`, ""));
  }, SLOW_HOOK);

  test("link #15,000, to a 404, is a broken-link, and the 404 names the page among its referrers", async () => {
    const { dir, findings } = await audited(["--dir", site, "--base-url", "https://links.example/"]);
    const broken = findings.filter((f) => f.rule === "broken-link");
    expect(broken.map((f) => [f.url, f.detail.href])).toEqual([
      ["https://links.example/", "https://links.example/missing.html"],
    ]);
    const missing = await run(seo, [
      "page",
      "get",
      "--url",
      "https://links.example/missing.html",
      "--run-dir",
      dir,
      "--json",
    ]);
    expect(missing.json.data.page.status).toBe(404);
    const crawl = JSON.parse(await Bun.file(join(dir, "crawl.json")).text());
    const referrers = (await Bun.file(join(dir, crawl.data.referrers_file.file)).text())
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(referrers.find((r: any) => r.url === "https://links.example/missing.html").linked_from).toEqual([
      "https://links.example/",
    ]);
  });

  test("a 'click here' as link #1,101 is a link-text finding", async () => {
    const { findings } = await audited(["--dir", site, "--base-url", "https://links.example/"]);
    expect(findings.filter((f) => f.rule === "link-text").map((f) => f.detail.text)).toEqual(["click here"]);
  });
});

describe("a 5 MB page", () => {
  let site: string;
  let server: ReturnType<typeof Bun.serve>;
  const big = page(
    "A page of five megabytes",
    `<p>${"Many more words fill this very large page. ".repeat(120_000)}</p><a href="/after.html">after the cut</a>`,
  );
  beforeAll(() => {
    site = fresh();
    writeFileSync(join(site, "index.html"), big);
    writeFileSync(join(site, "after.html"), page("The page after the cut", ""));
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) =>
        new Response(new URL(req.url).pathname === "/" ? big : page("The page after the cut", ""), {
          headers: { "content-type": "text/html" },
        }),
    });
  }, SLOW_HOOK);
  afterAll(() => server.stop(true), SLOW_HOOK);

  for (const via of ["a folder", "HTTP"] as const)
    test(`read from ${via}, it is a body-cut finding naming its size and the limit, and the crawl counts it`, async () => {
      expect(big.length).toBeGreaterThan(5_000_000);
      const argv =
        via === "a folder"
          ? ["--dir", site, "--base-url", "https://big.example/"]
          : ["--url", `http://127.0.0.1:${server.port}/`];
      const { crawl, findings } = await audited(argv);
      expect(crawl.cut).toBe(1);
      const cut = findings.filter((f) => f.rule === "body-cut");
      expect(cut).toHaveLength(1);
      expect(cut[0].detail).toEqual({ bytes: big.length, limit: 2 * 1024 * 1024 });
      expect(cut[0].message).toContain("--max-body-bytes");
    });

  test("with --max-body-bytes above its size it is read whole: no finding, every word counted, the link past 2 MiB followed", async () => {
    const { dir, crawl, findings } = await audited([
      "--dir",
      site,
      "--base-url",
      "https://big.example/",
      "--max-body-bytes",
      String(8 * 1024 * 1024),
    ]);
    expect(crawl.cut).toBe(0);
    expect(findings.filter((f) => f.rule === "body-cut")).toEqual([]);
    const got = await run(seo, ["page", "get", "--url", "https://big.example/", "--run-dir", dir, "--json"]);
    expect(got.json.data.page.word_count).toBeGreaterThan(840_000);
    expect(crawl.pages).toBe(2);
  });
});

describe("links not followed", () => {
  test("are counted in full however many there are, though the artifact lists only the first", async () => {
    const site = fresh();
    writeFileSync(
      join(site, "index.html"),
      page(
        "A page linking to many pages",
        Array.from({ length: 700 }, (_, i) => `<a href="/n${i}.html">Page ${i}</a>`).join(" "),
      ),
    );
    const { crawl } = await audited(["--dir", site, "--base-url", "https://many.example/", "--max-pages", "1"]);
    expect(crawl.skipped).toEqual({ "max-pages": 700 });
  });
});
