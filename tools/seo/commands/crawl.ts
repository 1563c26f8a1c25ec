import { statSync } from "node:fs";
import { resolve } from "node:path";
import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError } from "agent-cli-kit";
import type { CrawledPage } from "../lib/crawler.ts";

const flags = z.object({
  url: z.optional(describe(z.url({ protocol: /^https?$/ }), "The site to crawl, an http(s) URL. Give this or --dir.")),
  dir: z.optional(
    describe(
      z.string().check(z.minLength(1)),
      "A static-site folder, crawled as a web server would serve it. Give this or --url.",
    ),
  ),
  baseUrl: z._default(
    describe(
      z.url({ protocol: /^https?$/ }),
      "With --dir: the site's public URL, against which its absolute links and canonicals are judged.",
    ),
    "http://localhost/",
  ),
  maxPages: z._default(describe(z.int().check(z.minimum(1), z.maximum(10_000_000)), "Stop after this many pages."), 50),
  maxDepth: z._default(
    describe(z.int().check(z.minimum(0), z.maximum(50)), "Follow links at most this many clicks from the start page."),
    5,
  ),
  concurrency: z._default(describe(z.int().check(z.minimum(1), z.maximum(16)), "Requests in flight at once."), 4),
  maxBodyBytes: z._default(
    describe(
      z.int().check(z.minimum(1024), z.maximum(1024 * 1024 * 1024)),
      "Read at most this many bytes of a page's HTML; a larger page is read up to it and is a `body-cut` finding.",
    ),
    2 * 1024 * 1024,
  ),
  timeout: z._default(
    describe(z.int().check(z.minimum(100), z.maximum(120000)), "Per-request timeout in milliseconds."),
    10000,
  ),
});

const result = z.object({
  source: z.object({ kind: z.enum(["url", "dir"]), location: z.string() }),
  start_url: z.string(),
  pages: describe(z.number(), "Pages fetched."),
  by_status: describe(z.record(z.string(), z.number()), "Pages per HTTP status; 0 is a request that failed."),
  redirected: z.number(),
  skipped: describe(z.record(z.string(), z.number()), "Links not followed, by reason: robots, max-pages, max-depth."),
  cut: describe(
    z.optional(z.number()),
    "Pages larger than --max-body-bytes, read only up to it (each a `body-cut` finding).",
  ),
  robots_txt: z.boolean(),
  dry_run: z.boolean(),
  artifact: describe(z.nullable(z.string()), "Path of crawl.json; null on --dry-run."),
});

export default defineCommand({
  verb: "crawl",
  tier: 2,
  rw: "read",
  summary: "Crawl a site (--url) or a static-site folder (--dir) into crawl.json.",
  description:
    "Breadth-first over same-origin links, bounded by --max-pages and --max-depth, honouring robots.txt. Records each page's status, redirects and what its HTML says (title, meta, headings, links, images, words: parsed once, here) for the next stage, `extract`. The same site always gives the same pages in the same order.",
  flags,
  result,
  schema: "seo.crawl@1",
  errors: ["INVALID_INPUT", "NETWORK_ERROR"],
  stage: { writes: "crawl" },
  examples: [
    {
      argv: ["--url", "https://example.com", "--run-dir", "./run"],
      summary: "Crawl a live site into ./run/crawl.json.",
    },
    {
      argv: ["--dir", "./public", "--base-url", "https://example.com", "--run-dir", "./run"],
      summary: "Crawl a built static site.",
    },
  ],
  async run(ctx) {
    const { url, dir } = ctx.flags;
    if (url && dir)
      throw new KitError("CONFLICTING_FLAGS", "--url and --dir cannot be given together; crawl one source", {
        got: ["--url", "--dir"],
      });
    // zod's protocol option does not reach the compiled validator: the scheme is checked here.
    for (const [flag, value] of [
      ["--url", url],
      ["--base-url", dir ? ctx.flags.baseUrl : undefined],
    ] as const) {
      const scheme = value === undefined ? null : new URL(value.trim()).protocol;
      if (scheme !== null && scheme !== "http:" && scheme !== "https:")
        throw new KitError("INVALID_VALUE", `${flag} must be an http or https URL (got a ${scheme} URL)`, {
          got: value,
          allowed: ["http:", "https:"],
          hint: scheme === "file:" && flag === "--url" ? "crawl a folder with --dir PATH" : `give ${flag}=https://…`,
        });
    }
    if (!url && !dir)
      throw new KitError("MISSING_FLAG", "give --url (a live site) or --dir (a static-site folder)", {
        hint: "add --url=https://example.com or --dir=./public",
      });

    const { DirFetcher, HttpFetcher } = await import("../lib/fetchers.ts");
    let source: { kind: "url"; url: string } | { kind: "dir"; dir: string; base_url: string };
    let fetcher: InstanceType<typeof DirFetcher> | InstanceType<typeof HttpFetcher>;
    let start: string;
    if (dir) {
      const root = resolve(ctx.cwd, dir);
      if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
        throw new KitError("INVALID_INPUT", `--dir ${dir} is not a folder`, {
          got: dir,
          hint: "give the folder holding the built site (its index.html)",
        });
      // The base URL is the folder's place on the web, path included: its index.html is that URL.
      const base = new URL(ctx.flags.baseUrl);
      if (!base.pathname.endsWith("/")) base.pathname += "/";
      base.search = "";
      base.hash = "";
      fetcher = new DirFetcher(root, base.pathname, ctx.flags.maxBodyBytes);
      start = base.href;
      source = { kind: "dir", dir: fetcher.root, base_url: start };
    } else {
      fetcher = new HttpFetcher(ctx.flags.timeout, ctx.flags.maxBodyBytes);
      start = new URL(url!).href;
      source = { kind: "url", url: start };
    }
    const location = source.kind === "dir" ? source.dir : source.url;

    if (ctx.dryRun)
      return {
        source: { kind: source.kind, location },
        start_url: start,
        pages: 0,
        by_status: {},
        redirected: 0,
        skipped: {},
        cut: 0,
        robots_txt: false,
        dry_run: true,
        artifact: null,
      };

    const { crawl } = await import("../lib/crawler.ts");
    const { PageWriter, removeStale } = await import("../lib/page-store.ts");
    const robotsTxt = await fetcher.robotsTxt(start, ctx.signal);
    ctx.runDir.create();
    const dirPath = ctx.runDir.path;
    const redact = (t: string) => ctx.runDir.redact(t);
    // Pages go to disk as they are fetched: the crawl holds only the link graph.
    const writer = new PageWriter<CrawledPage>(dirPath, "crawl", redact);
    const tally = { pages: 0, by_status: {} as Record<string, number>, redirected: 0, cut: 0 };
    let first: CrawledPage | null = null;
    let crawled: Awaited<ReturnType<typeof crawl>>;
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
          tally.pages++;
          tally.by_status[String(p.status)] = (tally.by_status[String(p.status)] ?? 0) + 1;
          if (p.redirects.length > 0) tally.redirected++;
          if (p.cut) tally.cut++;
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
    const pagesFile = writer.finish();
    const refs = new PageWriter<{ url: string; linked_from: string[] }>(dirPath, "crawl", redact, "referrers");
    for (const [u, from] of crawled.referrers) if (from.length > 0) refs.write({ url: u, linked_from: from });
    const referrersFile = refs.finish();
    const { referrers: _, ...rest } = crawled;
    const { path } = ctx.runDir.write("crawl", {
      ...rest,
      source,
      start_url: start,
      options: { max_pages: ctx.flags.maxPages, max_depth: ctx.flags.maxDepth, max_body_bytes: ctx.flags.maxBodyBytes },
      pages_file: pagesFile,
      referrers_file: referrersFile,
    });
    removeStale(dirPath, "crawl", pagesFile.file);
    removeStale(dirPath, "crawl", referrersFile.file, "referrers");
    ctx.setOutcome({ realized: tally.pages });
    return {
      source: { kind: source.kind, location },
      start_url: start,
      pages: tally.pages,
      by_status: tally.by_status,
      redirected: tally.redirected,
      skipped: crawled.skipped_count,
      cut: tally.cut,
      robots_txt: robotsTxt !== null,
      dry_run: false,
      artifact: path,
    };
  },
});
