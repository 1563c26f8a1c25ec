/**
 * seo on sites as they are published: under a base path (a folder crawl
 * with --base-url …/docs/15/, and the same site served by HTTP under that
 * path), and with the anchors real documentation is full of (named anchors,
 * mailto links), judged as Lighthouse's crawlable-anchors judges them.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, run } from "../helpers/bin.ts";
import { serveSite, type SiteServer } from "../helpers/site-server.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const page = (title: string, body: string, head = "") =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} of the docs under a path</title>${head}<meta name="description" content="${title}: a page of a documentation site published under a sub-path, for tests."><meta name="viewport" content="width=device-width, initial-scale=1"></head><body><h1>${title}</h1><p>${body}</p></body></html>`;

/** The site's files, by path under its base. */
const SITE: Record<string, string> = {
  "index.html": page(
    "Home",
    `<a href="a.html">Page A</a> <a href="/docs/15/b/">Section B</a> <a href="/other/outside.html">Another manual</a> <a href="index.html">Home again</a>`,
    `<link rel="canonical" href="https://docs.example/docs/15/">`,
  ),
  "a.html": page(
    "A",
    `<a href="b/">Section B</a> <a href="missing.html">A page that is not there</a>`,
    `<link rel="canonical" href="https://docs.example/docs/15/a.html">`,
  ),
  "b/index.html": page(
    "B",
    `<a href="../a.html">Back to A</a>`,
    `<link rel="canonical" href="https://docs.example/b/">`,
  ),
};

const seo = (args: string[]) => run(binary("seo"), [...args, "--json"], { timeoutMs: 30_000 });

async function audited(crawlArgs: string[]): Promise<{ pages: any[]; findings: any[] }> {
  const runDir = mkdtempSync(join(tmpdir(), "seo-site-run-"));
  const crawl = await seo(["crawl", ...crawlArgs, "--run-dir", runDir]);
  expect(crawl.json.error).toBeNull();
  for (const stage of ["extract", "audit"]) expect((await seo([stage, "--run-dir", runDir])).json.error).toBeNull();
  const pages = (await seo(["page", "list", "--run-dir", runDir, "--limit", "100"])).json.data.items;
  const findings = (await seo(["finding", "list", "--run-dir", runDir, "--limit", "500"])).json.data.items;
  return { pages, findings };
}

function expectPathKept({ pages, findings }: { pages: any[]; findings: any[] }, origin: string): void {
  // Every page URL keeps the base path; the link above it is off-site: not crawled, not judged broken.
  expect(pages.map((p) => p.url).sort()).toEqual([
    `${origin}/docs/15/`,
    `${origin}/docs/15/a.html`,
    `${origin}/docs/15/b/`,
    `${origin}/docs/15/missing.html`,
  ]);
  const broken = findings.filter((f) => f.rule === "broken-link");
  expect(broken.map((f) => [f.url, f.detail?.href ?? f.message])).toEqual([
    [`${origin}/docs/15/a.html`, `${origin}/docs/15/missing.html`],
  ]);
  // Canonicals are judged against the site root with its path: b's canonical above it points off-site.
  const canonical = findings.filter((f) => f.rule === "canonical-offsite");
  expect(canonical.map((f) => [f.url, f.message])).toEqual([
    [`${origin}/docs/15/b/`, "canonical points off-site, to https://docs.example/b/"],
  ]);
}

describe("a site published under a base path", () => {
  test("crawled from its folder with --base-url …/docs/15 keeps the path in every URL and judges against it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "seo-site-"));
    for (const [path, body] of Object.entries(SITE)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), body);
    }
    expectPathKept(await audited(["--dir", dir, "--base-url", "https://docs.example/docs/15"]), "https://docs.example");
  });

  let server: SiteServer | null = null;
  afterAll(() => server?.stop(), SLOW_HOOK);

  test("crawled by HTTP from …/docs/15/ stays in that folder and judges the same way", async () => {
    const routes = Object.fromEntries(
      Object.entries(SITE).map(([path, body]) => [
        `/docs/15/${path.replace(/index\.html$/, "")}`,
        { body, headers: { "content-type": "text/html" } },
      ]),
    );
    server = serveSite({
      ...routes,
      "/other/outside.html": {
        body: page("Outside", "not part of this site"),
        headers: { "content-type": "text/html" },
      },
    });
    const origin = new URL(server.url).origin;
    const swap = (s: string) => s.replaceAll("https://docs.example", origin);
    for (const route of Object.values(routes)) route.body = swap(route.body!);
    const { pages, findings } = await audited(["--url", `${origin}/docs/15/`]);
    expect(server.requests.some((r) => r.startsWith("/other/"))).toBe(false);
    expect(pages.map((p) => p.url).sort()).toEqual([
      `${origin}/docs/15/`,
      `${origin}/docs/15/a.html`,
      `${origin}/docs/15/b/`,
      `${origin}/docs/15/missing.html`,
    ]);
    expect(findings.filter((f) => f.rule === "broken-link").map((f) => f.url)).toEqual([`${origin}/docs/15/a.html`]);
  });
});

describe("anchors, judged as Lighthouse's crawlable-anchors judges them", () => {
  test("named anchors, <a name>, mailto: and role links pass; a bare <a>, javascript:void(0), file: and an unparseable href fail", async () => {
    const dir = mkdtempSync(join(tmpdir(), "seo-anchors-"));
    const passing = `<a id="idm1" class="indexterm"></a><a name="sec-2"></a><a href="mailto:docs@example.invalid">write</a><a role="button">toggle</a><a aria-current="page">here</a><a href="other.html">other page</a>`;
    const failing = `<a>no href</a><a href="javascript:void(0)">script</a><a href="file:///etc/hosts">file</a><a href="http://[broken">broken</a>`;
    writeFileSync(join(dir, "index.html"), page("Anchors", passing + failing));
    writeFileSync(join(dir, "other.html"), page("Other", `<a id="only-an-anchor"></a>`));
    const { findings } = await audited(["--dir", dir, "--base-url", "https://anchors.example/"]);
    const uncrawlable = findings.filter((f) => f.rule === "crawlable-anchors");
    expect(uncrawlable.every((f) => f.url === "https://anchors.example/")).toBe(true);
    expect(uncrawlable.map((f) => f.detail.href).sort()).toEqual(
      ["file:///etc/hosts", "http://[broken", "javascript:void(0)", null].sort(),
    );
  });
});
