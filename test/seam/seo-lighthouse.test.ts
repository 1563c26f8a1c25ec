/**
 * seo's rules that carry a Lighthouse audit's id judge as that audit does
 * (Lighthouse 12's sources: canonical, link-text, robots-txt,
 * http-status-code), and seo's own judgements carry ids of their own.
 * In-process, on small sites written here.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import seoTool from "../../tools/seo/tool.ts";
import { runInProcess } from "../helpers/in-process.ts";

const page = (
  head: string,
  body = "<h1>A page</h1><p>Enough words to not be thin content for the audit here.</p>",
  lang = "en",
) =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>A page of the site</title>${head}</head><body>${body}</body></html>`;

async function findings(files: Record<string, string>): Promise<{ rule: string; url: string; message: string }[]> {
  const dir = mkdtempSync(join(tmpdir(), "seo-lh-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, "site", path, ".."), { recursive: true });
    writeFileSync(join(dir, "site", path), text);
  }
  const run = join(dir, "run");
  for (const stage of [
    ["crawl", "--dir", join(dir, "site"), "--base-url", "https://lh.example"],
    ["extract"],
    ["audit"],
  ]) {
    const r = await runInProcess(seoTool, [...stage, "--run-dir", run, "--json"]);
    expect(r.code).toBe(0);
  }
  const list = await runInProcess(seoTool, ["finding", "list", "--run-dir", run, "--limit", "1000", "--json"]);
  return list.json.data.items;
}
const of = (fs: { rule: string; url: string; message: string }[], rule: string) =>
  fs.filter((f) => f.rule === rule).map((f) => [new URL(f.url).pathname, f.message]);

describe("canonical, as Lighthouse judges it", () => {
  test("relative, conflicting, the host's root and another hreflang alternate fail; off-site and broken targets are rules of their own", async () => {
    const fs = await findings({
      "index.html": page(
        '<link rel="canonical" href="https://lh.example/">',
        '<a href="/rel.html">r</a><a href="/two.html">t</a><a href="/root.html">o</a><a href="/alt.html">a</a><a href="/off.html">f</a><a href="/dead.html">d</a>',
      ),
      "rel.html": page('<link rel="canonical" href="/rel.html">'),
      "two.html": page(
        '<link rel="canonical" href="https://lh.example/two.html"><link rel="canonical" href="https://lh.example/other.html">',
      ),
      "root.html": page('<link rel="canonical" href="https://lh.example/">'),
      "alt.html": page(
        '<link rel="canonical" href="https://lh.example/de/alt.html"><link rel="alternate" hreflang="en" href="https://lh.example/alt.html"><link rel="alternate" hreflang="de" href="https://lh.example/de/alt.html">',
      ),
      "off.html": page('<link rel="canonical" href="https://elsewhere.example/off.html">'),
      "dead.html": page('<link rel="canonical" href="https://lh.example/gone.html">', '<a href="/gone.html">gone</a>'),
    });
    expect(of(fs, "canonical").sort()).toEqual([
      ["/alt.html", "canonical points at another hreflang alternate, https://lh.example/de/alt.html"],
      ["/rel.html", "canonical '/rel.html' is relative; use an absolute URL"],
      ["/root.html", "canonical points at the host's root (the home page)"],
      ["/two.html", "2 different canonical URLs"],
    ]);
    expect(of(fs, "canonical-offsite")).toEqual([
      ["/off.html", "canonical points off-site, to https://elsewhere.example/off.html"],
    ]);
    expect(of(fs, "canonical-broken")).toEqual([["/dead.html", "canonical https://lh.example/gone.html answers 404"]]);
  });
});

describe("link-text, as Lighthouse judges it", () => {
  test("its list in the page's language; nofollow, mailto:, javascript: and links to the page itself are not judged", async () => {
    const fs = await findings({
      "index.html": page(
        "",
        '<a href="/a.html">click here</a> <a href="/b.html">Read more</a> <a href="/c.html" rel="nofollow">here</a> <a href="mailto:x@lh.example">more</a> <a href="/#top">more</a> <a href="/d.html">link</a> <a href="/e.html">more.</a> <a href="/es.html">en español</a>',
      ),
      "es.html": page("", '<a href="/a.html">aquí</a> <a href="/b.html">here</a>', "es"),
      "a.html": page(""),
      "b.html": page(""),
      "c.html": page(""),
      "d.html": page(""),
      "e.html": page(""),
    });
    expect(
      of(fs, "link-text")
        .map(([p, m]) => `${p} ${m}`)
        .sort(),
    ).toEqual([
      "/ link text 'Read more' does not say where it goes",
      "/ link text 'click here' does not say where it goes",
      "/es.html link text 'aquí' does not say where it goes",
    ]);
  });
});

describe("robots-txt, as Lighthouse validates it", () => {
  test("each unreadable line is a finding on robots.txt; a valid file has none", async () => {
    const bad = await findings({
      "index.html": page(""),
      "robots.txt":
        "Disallow: /early\nUser-agent: *\nDisallow: private\nAllow: /a$b\nSitemap: /sitemap.xml\nCrawl-delay: 2\nFoo: bar\njust words\n",
    });
    const lineOf = (m: string) => Number(/^line (\d+)/.exec(m)![1]);
    expect(
      of(bad, "robots-txt")
        .map(([, m]) => m!)
        .sort((a, b) => lineOf(a) - lineOf(b)),
    ).toEqual([
      "line 1: No user-agent specified: 'Disallow: /early'",
      `line 3: Pattern should either be empty, start with "/" or "*": 'Disallow: private'`,
      `line 4: "$" should only be used at the end of the pattern: 'Allow: /a$b'`,
      "line 5: Invalid sitemap URL: 'Sitemap: /sitemap.xml'",
      "line 7: Unknown directive: 'Foo: bar'",
      "line 8: Syntax not understood: 'just words'",
    ]);
    const good = await findings({
      "index.html": page(""),
      "robots.txt": "# ok\nUser-agent: *\nDisallow: /private/\nSitemap: https://lh.example/sitemap.xml\n",
    });
    expect(of(good, "robots-txt")).toEqual([]);
  });
});
