/**
 * fix-broken-link's read-back: the link it repoints is broken as the audit
 * found it (no file of the site folder serves it), and the target it writes
 * answers (a file of the folder serves it). A target off the site (another
 * host, `//host`, any URL with a scheme: what host a plan's own words call
 * the site's is the agent's say, so no URL is taken for the site's) is a
 * person's decision, never the policy's alone.
 */
import { DirFetcher } from "./fetchers.ts";
import { withinSite } from "./url.ts";

export interface LinkJudgement {
  /** Why the item is no fix of a broken link (empty: it is one). */
  beyond: string[];
  /** What a person must decide (empty: nothing). */
  asks: string[];
}

const show = (s: unknown): string => JSON.stringify(String(s).slice(0, 80));

/** A URL's site path as the folder serves it, or null when it lies outside the site. */
function servedFile(folder: DirFetcher, url: URL, site: URL): string | null {
  const rel = url.pathname.slice(site.pathname.length);
  return folder.resolve(`/${rel}`);
}

/** The judgement of a fix-broken-link item on page `file` of the folder `root`, published at `baseUrl`. */
export function judgeLink(root: string, baseUrl: unknown, file: string, from: unknown, to: unknown): LinkJudgement {
  if (typeof baseUrl !== "string" || !URL.canParse(baseUrl))
    return { beyond: ["the plan does not say where the site is published (context.base_url)"], asks: [] };
  if (typeof from !== "string" || typeof to !== "string")
    return { beyond: ["its params do not name the link (from) and its new target (to)"], asks: [] };
  const site = new URL(baseUrl);
  const page = new URL(file.split("/").map(encodeURIComponent).join("/"), site);
  const folder = new DirFetcher(root, site.pathname);
  const beyond: string[] = [];
  const asks: string[] = [];
  const was = URL.canParse(from, page.href) ? new URL(from, page) : null;
  if (!was || !/^https?:$/.test(was.protocol) || !withinSite(was.href, site.href))
    beyond.push(`the link ${show(from)} is not a link to a page of the site: seo repoints only its own broken links`);
  else if (servedFile(folder, was, site) !== null)
    beyond.push(`the link ${show(from)} is not broken: the site folder serves it`);
  const offSite = /^[a-z][a-z0-9+.-]*:/i.test(to) || /^[\\/]{2}/.test(to);
  const now = URL.canParse(to, page.href) ? new URL(to, page) : null;
  if (offSite || !now || !withinSite(now.href, site.href))
    asks.push(`it points the link at ${show(to)}, off the site's own pages: a person must decide`);
  else if (servedFile(folder, now, site) === null)
    beyond.push(`its new target ${show(to)} does not answer: the site folder serves no such page`);
  return { beyond, asks };
}
