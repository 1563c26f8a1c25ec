/**
 * The crawl stage's work: the source opened (a folder or a live site), the
 * pages written to their NDJSON file as they are fetched (page-store.ts),
 * then the referrers, then crawl.json naming both.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { type CommandContext, KitError } from "agent-cli-kit";
import type { Source } from "./artifacts.ts";
import { type CrawledPage, type CrawlResult, crawl } from "./crawler.ts";
import { DirFetcher, HttpFetcher } from "./fetchers.ts";
import { type PagesFile, PageWriter, removeStale } from "./page-store.ts";

export interface CrawlFlags {
  url?: string;
  dir?: string;
  baseUrl: string;
  maxPages: number;
  maxDepth: number;
  concurrency: number;
  maxBodyBytes: number;
  timeout: number;
}

export interface Opened {
  source: Source;
  fetcher: DirFetcher | HttpFetcher;
  start: string;
}

/** The folder (by --dir, at --base-url) or the live site (by --url) to crawl, and its start URL. */
export async function openSource(cwd: string, flags: CrawlFlags): Promise<Opened> {
  if (!flags.dir) {
    const start = new URL(flags.url!).href;
    return { source: { kind: "url", url: start }, fetcher: new HttpFetcher(flags.timeout, flags.maxBodyBytes), start };
  }
  const root = resolve(cwd, flags.dir);
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
    throw new KitError("INVALID_INPUT", `--dir ${flags.dir} is not a folder`, {
      got: flags.dir,
      hint: "give the folder holding the built site (its index.html)",
    });
  // The base URL is the folder's place on the web, path included: its index.html is that URL.
  const base = new URL(flags.baseUrl);
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  base.search = "";
  base.hash = "";
  const fetcher = new DirFetcher(root, base.pathname, flags.maxBodyBytes);
  return { source: { kind: "dir", dir: fetcher.root, base_url: base.href }, fetcher, start: base.href };
}

export interface Tally {
  pages: number;
  by_status: Record<string, number>;
  redirected: number;
  cut: number;
}

/** Crawls into the run dir; pages go to disk as they are fetched: the crawl holds only the link graph. */
export async function crawlStage(ctx: CommandContext<CrawlFlags>, opened: Opened) {
  const { fetcher, start, source } = opened;
  const robotsTxt = await fetcher.robotsTxt(start, ctx.signal);
  ctx.runDir.create();
  const dir = ctx.runDir.path;
  const redact = (t: string) => ctx.runDir.redact(t);
  const writer = new PageWriter<CrawledPage>(dir, "crawl", redact);
  const tally: Tally = { pages: 0, by_status: {}, redirected: 0, cut: 0 };
  let first: CrawledPage | null = null;
  let crawled: CrawlResult;
  try {
    crawled = await crawl({
      start,
      fetcher,
      robotsTxt,
      maxPages: ctx.flags.maxPages,
      maxDepth: ctx.flags.maxDepth,
      concurrency: ctx.flags.concurrency,
      signal: ctx.signal,
      honourCrawlDelay: source.kind === "url",
      onCrawlDelay: (ms, asked) =>
        ctx.log.info(
          `robots.txt asks for a crawl-delay of ${asked} s: requests start ${ms} ms apart${ms < asked * 1000 ? ` (at most ${ms / 1000} s is honoured)` : ""}`,
        ),
      onPage: (p) => {
        first ??= p;
        writer.write(p);
        count(tally, p);
        ctx.log.debug(`${p.status} ${p.url}`);
        ctx.progress("crawled pages", tally.pages);
      },
    });
  } catch (e) {
    writer.abandon();
    throw e;
  }
  const start0 = first as CrawledPage | null;
  if (start0 && start0.status === 0) {
    writer.abandon();
    throw new KitError("NETWORK_ERROR", `could not reach ${start}: ${start0.error}`, {
      hint: "check the URL and that the site is up, then retry",
    });
  }
  const path = writeCrawl(ctx, opened, writer.finish(), crawled);
  return { tally, skipped: crawled.skipped_count, robotsTxt: robotsTxt !== null, path };
}

/** The referrers file, then crawl.json naming it and the pages file; earlier runs' files go. */
function writeCrawl(
  ctx: CommandContext<CrawlFlags>,
  { source, start }: Opened,
  pagesFile: PagesFile,
  crawled: CrawlResult,
): string {
  const dir = ctx.runDir.path;
  const refs = new PageWriter<{ url: string; linked_from: string[] }>(
    dir,
    "crawl",
    (t) => ctx.runDir.redact(t),
    "referrers",
  );
  for (const [u, from] of crawled.referrers) if (from.length > 0) refs.write({ url: u, linked_from: from });
  const referrersFile = refs.finish();
  const { referrers: _, ...rest } = crawled;
  const { maxPages, maxDepth, maxBodyBytes } = ctx.flags;
  const { path } = ctx.runDir.write("crawl", {
    ...rest,
    source,
    start_url: start,
    options: { max_pages: maxPages, max_depth: maxDepth, max_body_bytes: maxBodyBytes },
    pages_file: pagesFile,
    referrers_file: referrersFile,
  });
  removeStale(dir, "crawl", pagesFile.file);
  removeStale(dir, "crawl", referrersFile.file, "referrers");
  return path;
}

function count(tally: Tally, p: CrawledPage): void {
  tally.pages++;
  tally.by_status[String(p.status)] = (tally.by_status[String(p.status)] ?? 0) + 1;
  if (p.redirects.length > 0) tally.redirected++;
  if (p.cut) tally.cut++;
}
