/**
 * A site as seo's audit reads it, made in memory from real HTML: each page
 * parsed by parsePage and recorded as `seo extract` records a crawled page,
 * for the in-process tests beside tools/seo/lib.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtractedPage } from "../../tools/seo/lib/page-schema.ts";
import type { ExtractData } from "../../tools/seo/lib/artifacts.ts";
import { decodeHtml } from "../../tools/seo/lib/decode.ts";
import { extracted } from "../../tools/seo/lib/extracted.ts";
import { ruleOrder } from "../../tools/seo/lib/finding-store.ts";
import { parsePage } from "../../tools/seo/lib/html-parse.ts";
import { type AuditCounts, audit } from "../../tools/seo/lib/rules.ts";
import type { Finding } from "../../tools/seo/lib/schemas.ts";
import { normalizeUrl } from "../../tools/seo/lib/url.ts";

/** A page: its HTML (`{url}` stands for its own URL), a status it answers without HTML, or both with what a crawl saw. */
export type TestPage =
  | string
  | number
  | {
      html?: string;
      status?: number;
      redirects?: number;
      x_robots_tag?: string;
      cut?: boolean;
      size?: number;
      encoding?: ExtractedPage["encoding"];
    };

export interface SiteOptions {
  robots?: { url: string; content: string | null };
  blocked?: { url: string; linked_from: string[] }[];
  maxBodyBytes?: number;
}

/** The file a folder crawl reads for `path`: `dir/` is `dir/index.html`. */
const fileOf = (path: string): string => (path === "" || path.endsWith("/") ? `${path}index.html` : path);

/** One page as extract records it (lib/extracted.ts), from what a crawl of it would have seen. */
export function extractedPage(origin: string, path: string, given: TestPage): ExtractedPage {
  const p = typeof given === "string" ? { html: given } : typeof given === "number" ? { status: given } : given;
  const url = normalizeUrl(path, origin)!;
  const parsed = p.html === undefined ? null : parsePage(p.html.replaceAll("{url}", url), url);
  return extracted({
    url,
    final_url: url,
    status: p.status ?? 200,
    depth: path === "" ? 0 : 1,
    size: p.size ?? (p.html === undefined ? null : Buffer.byteLength(p.html)),
    cut: p.cut ?? false,
    file: fileOf(path),
    content_type: parsed ? "text/html" : null,
    encoding: parsed ? (p.encoding ?? { name: "utf-8", source: "fallback" }) : null,
    redirects: Array.from({ length: p.redirects ?? 0 }, () => ({ url, status: 301, location: url })),
    parsed,
    error: null,
    x_robots_tag: p.x_robots_tag ?? null,
  });
}

/** The site of `pages` (by path under `origin`, "" its start page) as extract.json and its pages. */
export function siteOf(
  origin: string,
  pages: Record<string, TestPage>,
  opts: SiteOptions = {},
): { data: ExtractData; pages: ExtractedPage[] } {
  const all = Object.entries(pages).map(([path, page]) => extractedPage(origin, path, page));
  const data: ExtractData = {
    source: { kind: "dir", dir: "/site", base_url: origin },
    start_url: origin,
    page_count: all.length,
    blocked: opts.blocked ?? [],
    robots: opts.robots ?? { url: `${origin}robots.txt`, content: null },
    ...(opts.maxBodyBytes ? { max_body_bytes: opts.maxBodyBytes } : {}),
  };
  return { data, pages: all };
}

/** The HTML pages of a folder, by path ("" for index.html), decoded as a folder crawl decodes them. */
export function folderPages(dir: string): Record<string, TestPage> {
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".html")).sort();
  return Object.fromEntries(
    files.map((f) => {
      const bytes = readFileSync(join(dir, f));
      const { text, encoding, source } = decodeHtml(bytes, "text/html");
      return [
        f.replace(/(^|\/)index\.html$/, "$1"),
        { html: text, size: bytes.length, encoding: { name: encoding, source } },
      ];
    }),
  );
}

export interface EdgeCase {
  file: string;
  audit: string;
  about: string;
}

/**
 * seo's verdicts on the edge corpus in `dir` (every page audited as one site
 * at http://127.0.0.1/), in Lighthouse's words: for each audit `recorded`
 * lists for a page, "fail" when seo has a finding of that rule on it, else
 * what Lighthouse said when it was "n/a", else "pass".
 */
export function verdicts(
  dir: string,
  recorded: Record<string, Record<string, string>>,
): (file: string) => Record<string, string> {
  const origin = "http://127.0.0.1/";
  const { data, pages } = siteOf(origin, folderPages(dir));
  const fails = new Set(
    auditSite(data, () => pages).findings.map((f) => `${f.url.replace(origin, "") || "index.html"} ${f.rule}`),
  );
  return (file) =>
    Object.fromEntries(
      Object.entries(recorded[file] ?? {}).map(([a, said]) => [
        a,
        fails.has(`${file} ${a}`) ? "fail" : said === "n/a" ? "n/a" : "pass",
      ]),
    );
}

/**
 * The audit of a site held in memory, with its findings in the order `seo
 * finding list` gives them: worst rule first, each rule's in the pages' order.
 */
export function auditSite(
  data: ExtractData,
  pages: () => Iterable<ExtractedPage>,
): Omit<AuditCounts, "findings"> & { findings: Finding[] } {
  const findings: Finding[] = [];
  const counts = audit(data, pages, (f) => findings.push(f), Date.now());
  return { ...counts, findings: findings.sort((a, b) => ruleOrder(a.rule, b.rule)) };
}
