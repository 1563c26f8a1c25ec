/**
 * The site-wide rules: duplicate titles and descriptions, and links to pages
 * that answer an error. What they need of every page is gathered in a first
 * pass over the pages: each URL's status, and each title and description
 * with the pages that have it, by their place in the pages (a number), not
 * their URL: the URLs are held once, in the status index.
 */
import type { ExtractedPage } from "./page-schema.ts";
import { type Emit, isContentPage, type SiteIndex } from "./rules-common.ts";

/** Other pages named in a duplicate finding: the count is whole, the list bounded. */
const MAX_OTHERS = 20;

/** A page that names another as canonical is a deliberate duplicate. */
const ownPage = (p: ExtractedPage) =>
  isContentPage(p) && (!p.canonical || p.canonical === p.final_url || p.canonical === p.url);
const DUPLICATES = [
  ["duplicate-title", (p: ExtractedPage) => p.title, "title"],
  ["duplicate-description", (p: ExtractedPage) => p.meta_description, "meta description"],
] as const;

export function indexSite(pages: Iterable<ExtractedPage>): SiteIndex {
  const index: SiteIndex = {
    status: new Map(),
    urls: [],
    groups: { "duplicate-title": new Map(), "duplicate-description": new Map() },
  };
  for (const p of pages) {
    const at = index.urls.push(p.url) - 1;
    index.status.set(p.url, p.status);
    if (!index.status.has(p.final_url)) index.status.set(p.final_url, p.status);
    if (!ownPage(p)) continue;
    for (const [rule, value] of DUPLICATES) {
      const v = value(p)?.trim().toLowerCase();
      if (!v) continue;
      const groups = index.groups[rule];
      const group = groups.get(v);
      if (group === undefined) groups.set(v, at);
      else if (typeof group === "number") groups.set(v, { count: 2, first: [group, at] });
      else {
        group.count++;
        if (group.first.length <= MAX_OTHERS) group.first.push(at);
      }
    }
  }
  return index;
}

/** The site-wide rules on the page at place `at` of the pages. */
export function siteRulesOfPage(p: ExtractedPage, at: number, index: SiteIndex, emit: Emit): void {
  if (!isContentPage(p)) return;
  if (ownPage(p))
    for (const [rule, value, what] of DUPLICATES) {
      const group = index.groups[rule].get(value(p)?.trim().toLowerCase() ?? "");
      if (group === undefined || typeof group === "number") continue;
      const others = group.first.filter((o) => o !== at).slice(0, MAX_OTHERS);
      emit(rule, p.url, `the same ${what} as ${group.count - 1} other page(s)`, {
        value: value(p),
        others: others.map((o) => index.urls[o]!),
        others_count: group.count - 1,
      });
    }
  for (const l of p.links) {
    if (!l.internal || !l.href) continue;
    const status = index.status.get(l.href);
    if (status !== undefined && (status === 0 || status >= 400))
      emit(
        "broken-link",
        p.url,
        `links to ${l.href}, which ${status ? `answers ${status}` : "cannot be reached"}`,
        { href: l.href, status, text: l.text, raw: l.raw },
        l.href,
      );
  }
}
