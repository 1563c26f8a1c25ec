/**
 * seo decodes each page as a browser does: a byte order mark, the HTTP
 * Content-Type charset, <meta charset>, <meta http-equiv>, then the fallback
 * (UTF-8 when valid, else windows-1252). Pages are real bytes, in a folder
 * and over HTTP on 127.0.0.1; titles and descriptions are read back through
 * `seo page get`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, run } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const seo = binary("seo");
const fresh = () => mkdtempSync(join(tmpdir(), "seo-enc-"));

const TITLE = "Café Müller: Straße, señor and naïve façades";
const DESCRIPTION =
  "Grüße aus Köln: a page whose accented words must survive decoding, byte for byte, in every encoding.";
const SMART = "“Smart” quotes cost €5 – a windows-1252 page";

/** An HTML page; `head` comes first so a declaration sits in the first 1,024 bytes. */
const html = (title: string, head = "") =>
  `<!doctype html><html lang="de"><head>${head}<title>${title}</title><meta name="description" content="${DESCRIPTION}"><meta name="viewport" content="width=device-width"></head><body><h1>${title}</h1><p>${DESCRIPTION} ${"Mehr Wörter über Köln. ".repeat(20)}</p></body></html>`;

const latin1 = (s: string) => Buffer.from(s, "latin1");
const cp1252 = (s: string) =>
  new Uint8Array([...s].map((c) => ({ "“": 0x93, "”": 0x94, "€": 0x80, "–": 0x96 })[c] ?? c.charCodeAt(0)));
const utf16le = (s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, "utf16le")]);
const utf16be = (s: string) => {
  const le = Buffer.from(s, "utf16le");
  for (let i = 0; i < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1]!, le[i]!];
  return Buffer.concat([Buffer.from([0xfe, 0xff]), le]);
};

const PAGES: Record<string, { bytes: Uint8Array; title: string; encoding: string; source: string }> = {
  "meta-charset.html": {
    bytes: latin1(html(TITLE, '<meta charset="iso-8859-1">')),
    title: TITLE,
    encoding: "windows-1252",
    source: "meta",
  },
  "http-equiv.html": {
    bytes: latin1(html(TITLE, '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">')),
    title: TITLE,
    encoding: "windows-1252",
    source: "meta",
  },
  "undeclared.html": { bytes: latin1(html(TITLE)), title: TITLE, encoding: "windows-1252", source: "fallback" },
  "cp1252.html": {
    bytes: cp1252(html(SMART, "<meta charset=windows-1252>")),
    title: SMART,
    encoding: "windows-1252",
    source: "meta",
  },
  "utf16le.html": { bytes: utf16le(html(TITLE)), title: TITLE, encoding: "utf-16le", source: "bom" },
  "utf16be.html": { bytes: utf16be(html(TITLE)), title: TITLE, encoding: "utf-16be", source: "bom" },
  "utf8.html": { bytes: Buffer.from(html(TITLE)), title: TITLE, encoding: "utf-8", source: "fallback" },
  "utf8-bom.html": {
    bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(html(TITLE, '<meta charset="iso-8859-1">'))]),
    title: TITLE,
    encoding: "utf-8",
    source: "bom",
  },
  "commented.html": {
    bytes: latin1(html(TITLE, '<!-- <meta charset="utf-8"> --><meta charset="latin1">')),
    title: TITLE,
    encoding: "windows-1252",
    source: "meta",
  },
};

async function pageOf(runDir: string, url: string) {
  const r = await run(seo, ["page", "get", "--url", url, "--run-dir", runDir, "--json"]);
  expect(r.code).toBe(0);
  return r.json.data as { page: any; findings: any[] };
}

describe("decoding a folder's pages", () => {
  let runDir: string;
  beforeAll(async () => {
    const site = fresh();
    const index = Object.keys(PAGES)
      .map((f) => `<a href="/${f}">${f} in its encoding</a>`)
      .join(" ");
    writeFileSync(join(site, "index.html"), html("Encodings of the pages", "").replace("<h1>", `${index}<h1>`));
    for (const [file, p] of Object.entries(PAGES)) writeFileSync(join(site, file), p.bytes);
    runDir = fresh();
    for (const stage of [["crawl", "--dir", site, "--base-url", "https://enc.example/"], ["extract"], ["audit"]])
      expect((await run(seo, [...stage, "--run-dir", runDir])).code).toBe(0);
  }, SLOW_HOOK);

  for (const [file, p] of Object.entries(PAGES))
    test(`${file} (${p.encoding}, from the ${p.source}) gives its real title and description, and no false finding`, async () => {
      const { page, findings } = await pageOf(runDir, `https://enc.example/${file}`);
      expect(page.title).toBe(p.title);
      expect(page.meta_description).toBe(DESCRIPTION);
      expect(page.encoding).toEqual({ name: p.encoding, source: p.source });
      expect(page.lang).toBe("de");
      const rules = findings.map((f) => f.rule);
      for (const rule of ["document-title", "meta-description", "html-lang", "h1-missing"])
        expect(rules).not.toContain(rule);
    });
});

describe("decoding a live site's pages", () => {
  let server: ReturnType<typeof Bun.serve>;
  const routes: Record<string, { bytes: Uint8Array; type: string }> = {
    "/header-latin1": { bytes: latin1(html(TITLE)), type: "text/html; charset=ISO-8859-1" },
    // The header outranks the page's own meta, as in a browser.
    "/header-over-meta": { bytes: latin1(html(TITLE, '<meta charset="utf-8">')), type: 'text/html; charset="latin1"' },
    "/unknown-label": {
      bytes: latin1(html(TITLE, '<meta charset="iso-8859-1">')),
      type: "text/html; charset=no-such-encoding",
    },
    "/utf16-bom-over-header": { bytes: utf16le(html(TITLE)), type: "text/html; charset=utf-8" },
  };
  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const path = new URL(req.url).pathname;
        if (path === "/")
          return new Response(
            html("Encodings over HTTP").replace(
              "<h1>",
              `${Object.keys(routes)
                .map((r) => `<a href="${r}">${r} page</a>`)
                .join(" ")}<h1>`,
            ),
            { headers: { "content-type": "text/html; charset=utf-8" } },
          );
        const route = routes[path];
        return route
          ? new Response(route.bytes, { headers: { "content-type": route.type } })
          : new Response("gone", { status: 404 });
      },
    });
  }, SLOW_HOOK);
  afterAll(() => server.stop(true), SLOW_HOOK);

  test("the Content-Type charset, a page's meta when the header names no known encoding, and a BOM over the header", async () => {
    const runDir = fresh();
    const origin = `http://127.0.0.1:${server.port}`;
    for (const stage of [["crawl", "--url", `${origin}/`], ["extract"]])
      expect((await run(seo, [...stage, "--run-dir", runDir])).code).toBe(0);
    const expected: Record<string, [string, string]> = {
      "/header-latin1": ["windows-1252", "content-type"],
      "/header-over-meta": ["windows-1252", "content-type"],
      "/unknown-label": ["windows-1252", "meta"],
      "/utf16-bom-over-header": ["utf-16le", "bom"],
    };
    for (const [path, [name, source]] of Object.entries(expected)) {
      const { page } = await pageOf(runDir, `${origin}${path}`);
      expect({ path, title: page.title, encoding: page.encoding }).toEqual({
        path,
        title: TITLE,
        encoding: { name, source },
      });
    }
  });
});

describe("planning a folder with a page not in UTF-8", () => {
  test("the page is left alone and the plan says why, instead of the plan failing", async () => {
    const site = fresh();
    writeFileSync(
      join(site, "index.html"),
      latin1(
        `<!doctype html><html><head><meta charset="iso-8859-1"><title>${TITLE}</title></head><body><h1>x</h1><p>${"Wörter über Köln und mehr. ".repeat(10)}</p></body></html>`,
      ),
    );
    const runDir = fresh();
    for (const stage of [["crawl", "--dir", site], ["extract"], ["audit"]])
      expect((await run(seo, [...stage, "--run-dir", runDir])).code).toBe(0);
    const plan = await run(seo, ["plan", "--run-dir", runDir, "--json"]);
    expect(plan.code).toBe(0);
    expect(plan.json.data.items).toEqual([]);
    expect(plan.json.data.skipped).toEqual([
      { file: "index.html", action: null, reason: expect.stringContaining("windows-1252") },
    ]);
  });
});
