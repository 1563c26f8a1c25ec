/**
 * Breadth-first crawl, one depth layer at a time and each layer in URL
 * order, so the same site always yields the same pages even when several
 * requests run at once. Same-origin links only; robots.txt is honoured;
 * every redirect hop is recorded.
 */
import robotsParser from "robots-parser";
import type { EncodingSource } from "./decode.ts";
import { USER_AGENT, isHtml, type Fetcher } from "./fetchers.ts";
import type { ParsedPage } from "./html.ts";
import { parsePage } from "./html-parse.ts";
import { normalizeUrl, siteRootOf, withinSite } from "./url.ts";

export interface CrawledPage {
  url: string;
  final_url: string;
  status: number;
  redirects: { url: string; status: number; location: string }[];
  content_type: string | null;
  /** The encoding the HTML was decoded from and what declared it (null: not HTML). */
  encoding: { name: string; source: EncodingSource } | null;
  /** The HTML's full size in bytes; `cut` when only the first --max-body-bytes of it were read. */
  size: number | null;
  cut: boolean;
  depth: number;
  file: string | null;
  /** What the page's HTML says (null: not HTML), parsed once, here: the HTML itself is not kept. */
  parsed: ParsedPage | null;
  error: string | null;
  x_robots_tag: string | null;
}

export type SkipReason = "robots" | "max-pages" | "max-depth";

export interface CrawlResult {
  /** Every URL robots.txt kept the crawl from (the audit's blocked-by-robots), and the first others not followed. */
  skipped: { url: string; reason: SkipReason; linked_from: string[] }[];
  /** How many links were not followed, by reason: every one, however few `skipped` lists. */
  skipped_count: Partial<Record<SkipReason, number>>;
  robots: { found: boolean; url: string; content: string | null };
  /** The pages that link to each page (at most MAX_REFERRERS each), for the pages fetched. */
  referrers: Map<string, string[]>;
}

export interface CrawlOptions {
  start: string;
  fetcher: Fetcher;
  robotsTxt: string | null;
  maxPages: number;
  maxDepth: number;
  concurrency: number;
  signal: AbortSignal;
  /** Each page as it is fetched, in crawl order: the crawl keeps none of them. */
  onPage: (page: CrawledPage) => void;
  /** Space requests by robots.txt's Crawl-delay (a live site; a folder is read, not requested). */
  honourCrawlDelay?: boolean;
  /** Told the delay it paces by, once, when robots.txt asks for one. */
  onCrawlDelay?: (ms: number, asked: number) => void;
}

/** The longest Crawl-delay honoured: a site asking for more is paced at this, and told so. */
export const MAX_CRAWL_DELAY_MS = 10_000;

/** Request starts at least `ms` apart, however many requests are in flight: a site's Crawl-delay. */
function pacer(ms: number, signal: AbortSignal): () => Promise<void> {
  let next = 0;
  return async () => {
    const now = performance.now(); // a pace between requests: elapsed time, not the time of day
    const at = Math.max(now, next);
    next = at + ms;
    if (at > now) {
      signal.throwIfAborted();
      await Bun.sleep(at - now);
    }
  };
}

const MAX_REDIRECTS = 10;
const MAX_REFERRERS = 20;
const MAX_SKIPPED = 500;

/** `fn` over `items`, at most `limit` at once, results in the items' order: only `limit` are held at a time. */
async function* orderedLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): AsyncGenerator<R> {
  const inflight: Promise<R>[] = [];
  let next = 0;
  while (next < items.length || inflight.length > 0) {
    while (inflight.length < limit && next < items.length) inflight.push(fn(items[next++]!));
    yield await inflight.shift()!;
  }
}

export async function crawl(opts: CrawlOptions): Promise<CrawlResult> {
  const robotsUrl = new URL("/robots.txt", opts.start).href;
  const site = siteRootOf(opts.start);
  const robots = opts.robotsTxt === null ? null : robotsParser(robotsUrl, opts.robotsTxt);
  const allowed = (url: string) => robots?.isAllowed(url, USER_AGENT) !== false;
  const asked = opts.honourCrawlDelay ? Number(robots?.getCrawlDelay(USER_AGENT) ?? 0) : 0;
  const delayMs = Number.isFinite(asked) && asked > 0 ? Math.min(Math.round(asked * 1000), MAX_CRAWL_DELAY_MS) : 0;
  if (delayMs > 0) opts.onCrawlDelay?.(delayMs, asked);
  const pace = delayMs > 0 ? pacer(delayMs, opts.signal) : async () => {};

  const referrers = new Map<string, string[]>();
  const refer = (url: string, from: string | null) => {
    const list = referrers.get(url) ?? [];
    if (from && list.length < MAX_REFERRERS && !list.includes(from)) list.push(from);
    referrers.set(url, list);
  };
  const seen = new Set<string>([opts.start]);
  const skipped = new Map<string, SkipReason>();
  let fetchedCount = 0;
  refer(opts.start, null);

  let layer = allowed(opts.start) ? [opts.start] : [];
  if (layer.length === 0) skipped.set(opts.start, "robots");
  for (let depth = 0; layer.length > 0; depth++) {
    const room = opts.maxPages - fetchedCount;
    const take = layer.slice(0, Math.max(0, room));
    for (const url of layer.slice(take.length)) skipped.set(url, "max-pages");

    const next = new Set<string>();
    for await (const page of orderedLimit(take, opts.concurrency, (url) => fetchPage(opts, url, depth, pace))) {
      fetchedCount++;
      opts.onPage(page);
      seen.add(page.final_url);
      if (!page.parsed || !withinSite(page.final_url, site)) continue;
      for (const link of page.parsed.links) {
        if (!link.href || !link.internal || !withinSite(link.href, site)) continue;
        refer(link.href, page.url);
        if (seen.has(link.href)) continue;
        seen.add(link.href);
        if (!allowed(link.href)) skipped.set(link.href, "robots");
        else if (depth + 1 > opts.maxDepth) skipped.set(link.href, "max-depth");
        else next.add(link.href);
      }
    }
    layer = [...next].sort();
    if (fetchedCount >= opts.maxPages) {
      for (const url of layer) skipped.set(url, "max-pages");
      break;
    }
  }

  return {
    ...skippedOf(skipped, referrers),
    robots: { found: opts.robotsTxt !== null, url: robotsUrl, content: opts.robotsTxt },
    referrers,
  };
}

/** Every URL robots.txt kept the crawl from and the first others not followed, with the count of each reason. */
function skippedOf(
  skipped: Map<string, SkipReason>,
  referrers: Map<string, string[]>,
): Pick<CrawlResult, "skipped" | "skipped_count"> {
  const skippedCount: Partial<Record<SkipReason, number>> = {};
  for (const reason of skipped.values()) skippedCount[reason] = (skippedCount[reason] ?? 0) + 1;
  let others = 0;
  return {
    skipped: [...skipped]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .filter(([, reason]) => reason === "robots" || others++ < MAX_SKIPPED)
      .map(([url, reason]) => ({ url, reason, linked_from: referrers.get(url) ?? [] })),
    skipped_count: skippedCount,
  };
}

async function fetchPage(
  opts: CrawlOptions,
  url: string,
  depth: number,
  pace: () => Promise<void>,
): Promise<CrawledPage> {
  const redirects: CrawledPage["redirects"] = [];
  let current = url;
  for (;;) {
    await pace();
    const res = await opts.fetcher.get(current, opts.signal);
    const target = res.status >= 300 && res.status < 400 && res.location ? normalizeUrl(res.location, current) : null;
    let error = res.error;
    if (target !== null) {
      redirects.push({ url: current, status: res.status, location: target });
      const looped = target === url || redirects.some((r) => r.url === target);
      if (looped) error = "redirect loop";
      else if (redirects.length > MAX_REDIRECTS) error = `more than ${MAX_REDIRECTS} redirects`;
      // Off-site targets are not fetched: the crawl stays in its site (origin and base path).
      else if (withinSite(target, siteRootOf(opts.start))) {
        current = target;
        continue;
      }
    }
    return {
      url,
      final_url: target ?? current,
      status: res.status,
      redirects,
      content_type: res.contentType,
      encoding: res.encoding,
      size: res.size,
      cut: res.cut,
      depth,
      file: res.file,
      parsed: isHtml(res.contentType) && res.body !== null ? parsePage(res.body, target ?? current) : null,
      error,
      x_robots_tag: res.xRobotsTag,
    };
  }
}
