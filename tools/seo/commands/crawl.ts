import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError } from "agent-cli-kit";

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
    "Breadth-first over same-origin links, bounded by --max-pages and --max-depth, honouring robots.txt. Records each page's status, redirects and what its HTML says (title, meta, headings, links, images, words: parsed once, here) for the next stage, `extract`. The same site always gives the same pages in the same order. A crawl stopped by --max-pages with pages left answers meta.truncated true, its hint naming the flag and how many pages were left.",
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
    checkSchemes(url, dir ? ctx.flags.baseUrl : undefined);
    if (!url && !dir)
      throw new KitError("MISSING_FLAG", "give --url (a live site) or --dir (a static-site folder)", {
        hint: "add --url=https://example.com or --dir=./public",
      });
    const { openSource, crawlStage } = await import("../lib/crawl-stage.ts");
    const opened = await openSource(ctx.cwd, ctx.flags);
    const location = opened.source.kind === "dir" ? opened.source.dir : opened.source.url;
    if (ctx.dryRun)
      return {
        source: { kind: opened.source.kind, location },
        start_url: opened.start,
        pages: 0,
        by_status: {},
        redirected: 0,
        skipped: {},
        cut: 0,
        robots_txt: false,
        dry_run: true,
        artifact: null,
      };
    const done = await crawlStage(ctx, opened);
    ctx.setOutcome({ realized: done.tally.pages });
    const unfetched = done.skipped["max-pages"] ?? 0;
    if (unfetched > 0)
      ctx.truncated(
        `the crawl stopped at --max-pages ${ctx.flags.maxPages}: ${unfetched} more page(s) were found but not fetched (and what they link to is unknown); crawl again with --max-pages ${ctx.flags.maxPages + unfetched} or more`,
      );
    return {
      source: { kind: opened.source.kind, location },
      start_url: opened.start,
      pages: done.tally.pages,
      by_status: done.tally.by_status,
      redirected: done.tally.redirected,
      skipped: done.skipped,
      cut: done.tally.cut,
      robots_txt: done.robotsTxt,
      dry_run: false,
      artifact: done.path,
    };
  },
});

/** zod's protocol option does not reach the compiled validator: the scheme is checked here. */
function checkSchemes(url: string | undefined, baseUrl: string | undefined): void {
  for (const [flag, value] of [
    ["--url", url],
    ["--base-url", baseUrl],
  ] as const) {
    const scheme = value === undefined ? null : new URL(value.trim()).protocol;
    if (scheme !== null && scheme !== "http:" && scheme !== "https:")
      throw new KitError("INVALID_VALUE", `${flag} must be an http or https URL (got a ${scheme} URL)`, {
        got: value,
        allowed: ["http:", "https:"],
        hint: scheme === "file:" && flag === "--url" ? "crawl a folder with --dir PATH" : `give ${flag}=https://…`,
      });
  }
}
