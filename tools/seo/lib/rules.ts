/**
 * The audit over extract.json's pages, in bounded memory: two passes over the
 * pages (each read afresh: the site is never held), the first gathering what
 * the site-wide rules need (rules-site.ts), the second judging each page and
 * handing its findings on as they come (to the spills: finding-store.ts).
 * Findings are deterministic: same input, same findings, same ids, same order.
 */
import type { ExtractData } from "./artifacts.ts";
import { RULES } from "./rules-meta.ts";
import type { Finding } from "./schemas.ts";
import type { ExtractedPage } from "./page-schema.ts";
import type { Emit } from "./rules-common.ts";
import { pageRules } from "./rules-page.ts";
import { robotsRules } from "./rules-robots.ts";
import { indexSite, siteRulesOfPage } from "./rules-site.ts";

const findingId = (rule: string, url: string, key: string): string =>
  `f-${new Bun.CryptoHasher("sha256").update(`${rule}\n${url}\n${key}`).digest("hex").slice(0, 12)}`;

/** What the audit found, counted as it went. */
export interface AuditCounts {
  pages: number;
  findings: number;
  pages_with_findings: number;
  by_severity: { high: number; medium: number; low: number };
}

/**
 * Judges every page, handing each finding to `found` once: a URL's findings
 * all come together (a page's, then links from URLs that are not pages, then
 * robots.txt's), so the same problem found twice on a URL is known by its id.
 */
export function audit(
  site: ExtractData,
  pages: () => Iterable<ExtractedPage>,
  found: (f: Finding) => void,
  /** The context's clock (ms), for directives with a date. */
  now: number,
): AuditCounts {
  const index = indexSite(pages());
  const counts: AuditCounts = {
    pages: 0,
    findings: 0,
    pages_with_findings: 0,
    by_severity: { high: 0, medium: 0, low: 0 },
  };
  let ids = new Set<string>();
  const emit: Emit = (rule, url, message, detail = {}, key = "") => {
    const id = findingId(rule, url, key);
    if (ids.has(id)) return;
    ids.add(id);
    const { severity, category } = RULES[rule];
    found({ id, rule, severity, category, url, message, detail });
    counts.findings++;
    counts.by_severity[severity]++;
  };
  /** Closes a URL's findings (a URL with any counts once) and starts the next's. */
  const nextUrl = () => {
    if (ids.size > 0) counts.pages_with_findings++;
    ids = new Set();
  };
  const blockedFrom = blockedByLinker(site);
  let robotsPageFound = false;
  for (const p of pages()) {
    nextUrl();
    pageRules(p, site, index, emit, now);
    siteRulesOfPage(p, counts.pages++, index, emit);
    for (const url of blockedFrom.get(p.url) ?? []) blockedLink(emit, p.url, url);
    blockedFrom.delete(p.url);
    if (p.url === site.robots?.url) robotsPageFound = ids.size > 0;
  }
  // Links from URLs the crawl did not record as pages (none, from a crawl): each URL's together.
  for (const [from, urls] of blockedFrom) {
    nextUrl();
    for (const url of urls) blockedLink(emit, from, url);
  }
  nextUrl();
  robotsRules(site, emit);
  // robots.txt's own findings count as a page with findings unless robots.txt was a page that had some.
  if (ids.size > 0 && robotsPageFound) counts.pages_with_findings--;
  nextUrl();
  return counts;
}

const blockedLink = (emit: Emit, from: string, url: string) =>
  emit("blocked-by-robots", from, `links to ${url}, which robots.txt disallows`, { href: url }, url);

/** The URLs robots.txt kept the crawl from, by the page that links to them. */
function blockedByLinker(site: ExtractData): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const b of site.blocked)
    for (const from of b.linked_from) {
      const list = out.get(from);
      if (list) list.push(b.url);
      else out.set(from, [b.url]);
    }
  return out;
}
