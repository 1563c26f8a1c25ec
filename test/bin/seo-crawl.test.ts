/** dist/seo against real sites: HTTP servers on 127.0.0.1 and the example folder. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, root, run } from "../helpers/bin.ts";
import { page, serveSite, type SiteServer } from "../helpers/site-server.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const seo = binary("seo");
const fresh = () => mkdtempSync(join(tmpdir(), "seo-crawl-"));
const artifact = (dir: string, name: string) => JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8"));
/** A stage's pages: the NDJSON file its artifact names. */
const pagesOf = (dir: string, name: string): any[] =>
  readFileSync(join(dir, artifact(dir, name).data.pages_file.file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
/** The audit's findings: the NDJSON file audit.json names. */
const findingsOf = (dir: string): any[] =>
  readFileSync(join(dir, artifact(dir, "audit").data.findings_file.file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe("crawling a live site", () => {
  let site: SiteServer;
  beforeAll(() => {
    const words = "Plenty of words about garden tools and how they are made by hand in the workshop. ".repeat(6);
    site = serveSite({
      "/robots.txt": { body: "User-agent: *\nDisallow: /private/\n", headers: { "content-type": "text/plain" } },
      "/": {
        body: page({
          title: "Home of the site",
          body: `<h1>Home</h1><p>${words}</p><a href="/a">A page</a> <a href="/old">Old page</a> <a href="/private/x">Private</a> <a href="/missing">Missing</a> <a href="/boom">Boom</a> <a href="https://elsewhere.invalid/">Elsewhere</a>`,
        }),
      },
      "/a": {
        body: page({ title: "Page A of the site", body: `<h1>A</h1><p>${words}</p><a href="/a/deeper">Deeper</a>` }),
      },
      "/a/deeper": {
        body: page({ title: "Deeper page here", body: `<h1>Deeper</h1><a href="/a/deeper/still">Still deeper</a>` }),
      },
      "/a/deeper/still": { body: page({ title: "Deepest page here", body: "<h1>Deepest</h1>" }) },
      "/old": { status: 301, headers: { location: "/older" } },
      "/older": { status: 302, headers: { location: "/a" } },
      "/boom": { status: 500, body: page({ title: "Server error", body: "oops" }) },
      "/private/x": { body: page({ title: "Secret" }) },
    });
  }, SLOW_HOOK);
  afterAll(() => site.stop(), SLOW_HOOK);

  test("records statuses and every redirect hop, honours robots.txt and stays on the origin", async () => {
    const dir = fresh();
    site.requests.length = 0;
    const r = await run(seo, ["crawl", "--url", `${site.url}/`, "--run-dir", dir]);
    expect(r.code).toBe(0);
    expect(r.json.data).toMatchObject({ robots_txt: true, redirected: 1, skipped: { robots: 1 } });
    expect(site.requests).not.toContain("/private/x");
    const crawl = artifact(dir, "crawl");
    const byPath = Object.fromEntries(pagesOf(dir, "crawl").map((p: any) => [new URL(p.url).pathname, p]));
    expect(byPath["/old"]).toMatchObject({ status: 200, final_url: `${site.url}/a` });
    expect(byPath["/old"].redirects).toEqual([
      { url: `${site.url}/old`, status: 301, location: `${site.url}/older` },
      { url: `${site.url}/older`, status: 302, location: `${site.url}/a` },
    ]);
    expect(byPath["/missing"].status).toBe(404);
    expect(byPath["/boom"].status).toBe(500);
    expect(pagesOf(dir, "crawl").every((p: any) => p.url.startsWith(site.url))).toBe(true);
    expect(crawl.data.skipped).toContainEqual({
      url: `${site.url}/private/x`,
      reason: "robots",
      linked_from: [`${site.url}/`],
    });
  });

  test("is bounded by --max-depth and --max-pages, and says what it left", async () => {
    const shallow = await run(seo, ["crawl", "--url", `${site.url}/`, "--run-dir", fresh(), "--max-depth", "1"]);
    expect(shallow.json.data.skipped["max-depth"]).toBeGreaterThan(0);
    const few = await run(seo, ["crawl", "--url", `${site.url}/`, "--run-dir", fresh(), "--max-pages", "2"]);
    expect(few.json.data.pages).toBe(2);
    expect(few.json.data.skipped["max-pages"]).toBeGreaterThan(0);
  });

  test("the same site gives the same pages in the same order, whatever the concurrency", async () => {
    const a = fresh();
    const b = fresh();
    await run(seo, ["crawl", "--url", `${site.url}/`, "--run-dir", a, "--concurrency", "1"]);
    await run(seo, ["crawl", "--url", `${site.url}/`, "--run-dir", b, "--concurrency", "8"]);
    const urls = (d: string) => pagesOf(d, "crawl").map((p: any) => [p.url, p.status]);
    expect(urls(a)).toEqual(urls(b));
  });

  test("the whole pipeline flags what is wrong with the live site", async () => {
    const dir = fresh();
    for (const stage of [["crawl", "--url", `${site.url}/`], ["extract"], ["audit"], ["score"]])
      expect((await run(seo, [...stage, "--run-dir", dir])).code).toBe(0);
    const findings = findingsOf(dir);
    const has = (rule: string, path: string) =>
      findings.some((f: any) => f.rule === rule && new URL(f.url).pathname === path);
    expect(has("http-status-code", "/missing")).toBe(true);
    expect(has("http-status-code", "/boom")).toBe(true);
    expect(has("broken-link", "/")).toBe(true);
    expect(has("redirect-chain", "/old")).toBe(true);
    expect(has("blocked-by-robots", "/")).toBe(true);
    expect(has("meta-description", "/a")).toBe(true);
    expect(artifact(dir, "score").data.score).toBeGreaterThan(0);
    // contract §7: each artifact records the tool version, the stage and its input checksum.
    const audit = artifact(dir, "audit");
    expect(audit).toMatchObject({ tool: "seo", stage: "audit", artifact: "audit", tool_version: "0.1.0" });
    expect(audit.input_checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(audit.inputs.map((i: any) => i.artifact)).toEqual(["extract"]);
  });

  test("a server that answers nothing for the start page is a retryable upstream failure", async () => {
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
    try {
      const r = await run(seo, [
        "crawl",
        "--url",
        `http://127.0.0.1:${dead.port}/`,
        "--timeout",
        "300",
        "--run-dir",
        fresh(),
      ]);
      expect([r.code, r.json.error.code, r.json.error.retryable]).toEqual([4, "NETWORK_ERROR", true]);
      expect(r.json.error.message).toContain("timed out after 300 ms");
    } finally {
      dead.stop(true);
    }
  });
});

describe("auditing the example static site", () => {
  const dir = fresh();
  const site = join(root, "examples", "site");

  test("finds every deliberate flaw", async () => {
    for (const stage of [
      ["crawl", "--dir", site, "--base-url", "https://harbour.example"],
      ["extract"],
      ["audit"],
      ["score"],
    ])
      expect((await run(seo, [...stage, "--run-dir", dir])).code).toBe(0);
    const findings = findingsOf(dir);
    const found = new Set(findings.map((f: any) => `${f.rule} ${new URL(f.url).pathname}`));
    const expected = [
      "broken-link /",
      "http-status-code /abuot.html",
      "http-status-code /catalogue-2023.html",
      "image-alt /",
      "link-text /",
      "blocked-by-robots /",
      "meta-description /about.html",
      "html-lang /about.html",
      "viewport /about.html",
      "canonical-missing /about.html",
      "is-crawlable /products.html",
      "crawlable-anchors /products.html",
      "thin-content /products.html",
      "title-length /products.html",
      "duplicate-title /",
      "duplicate-title /contact.html",
      "duplicate-description /contact.html",
      "link-text /contact.html",
      "canonical /blog/",
      "h1-multiple /blog/",
      "document-title /blog/first-harvest.html",
      "canonical /blog/first-harvest.html",
      "html-lang-valid /blog/first-harvest.html",
      "hreflang /blog/first-harvest.html",
      "broken-link /blog/sharpening.html",
    ];
    for (const e of expected) expect(found).toContain(e);
    // The well-formed page is clean.
    expect([...found].filter((f: any) => f.endsWith(" /blog/sharpening.html"))).toEqual([
      "broken-link /blog/sharpening.html",
    ]);
  });

  test("finding ids are stable across runs", async () => {
    const again = fresh();
    for (const stage of [["crawl", "--dir", site, "--base-url", "https://harbour.example"], ["extract"], ["audit"]])
      await run(seo, [...stage, "--run-dir", again]);
    const ids = (d: string) => findingsOf(d).map((f: any) => f.id);
    expect(ids(again)).toEqual(ids(dir));
  });

  test("a folder crawl never reads outside the folder", async () => {
    const r = await run(seo, ["crawl", "--dir", join(site, "blog"), "--run-dir", fresh()]);
    expect(r.code).toBe(0);
    for (const p of pagesOf(r.json.meta.run_dir, "crawl")) if (p.file) expect(p.file.startsWith("..")).toBe(false);
  });
});

describe("seo crawl --url and robots.txt's Crawl-delay", () => {
  test("requests start the delay apart, whatever --concurrency; the log says so", async () => {
    const starts: { path: string; at: number }[] = [];
    const pages = ["/a", "/b", "/c", "/d"];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const path = new URL(req.url).pathname;
        if (path === "/robots.txt") return new Response("User-agent: *\nCrawl-delay: 0.25\n");
        starts.push({ path, at: performance.now() });
        const body =
          path === "/"
            ? `<html><body>${pages.map((p) => `<a href="${p}">${p}</a>`).join(" ")}</body></html>`
            : "<html><body>leaf</body></html>";
        return new Response(body, { headers: { "content-type": "text/html" } });
      },
    });
    try {
      const r = await run(binary("seo"), [
        "crawl",
        "--url",
        `http://127.0.0.1:${server.port}/`,
        "--concurrency",
        "4",
        "--run-dir",
        mkdtempSync(join(tmpdir(), "delay-")),
        "--json",
      ]);
      expect([r.code, r.json.data.pages]).toEqual([0, 5]);
      expect(r.stderr).toContain("robots.txt asks for a crawl-delay of 0.25 s: requests start 250 ms apart");
      // Starts are paced 250 ms apart; arrivals jitter a little around them (unpaced, 4 at once arrive within a few ms).
      const gaps = starts.slice(1).map((s, i) => s.at - starts[i]!.at);
      expect(gaps).toHaveLength(4);
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(150);
      expect(starts.at(-1)!.at - starts[0]!.at).toBeGreaterThanOrEqual(900);
    } finally {
      server.stop(true);
    }
  });
});
