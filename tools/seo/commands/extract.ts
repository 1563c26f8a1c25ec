import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError } from "agent-cli-kit";
import type { CrawlData, ExtractData } from "../lib/artifacts.ts";
import { extracted } from "../lib/extracted.ts";
import type { ExtractedPage } from "../lib/page-schema.ts";

const result = z.object({
  pages: z.number(),
  html_pages: describe(z.number(), "Pages whose HTML was parsed."),
  links: describe(z.number(), "Links found across all pages."),
  images: z.number(),
  dry_run: z.boolean(),
  artifact: describe(z.nullable(z.string()), "Path of extract.json; null on --dry-run."),
});

export default defineCommand({
  verb: "extract",
  tier: 2,
  rw: "read",
  summary: "Extract each crawled page's SEO signals from crawl.json into extract.json.",
  description:
    "Per page: title, meta description, headings, canonical, lang, hreflang, robots meta and X-Robots-Tag, viewport, links with their text, images with their alt, and word count. Reads crawl.json; run `crawl` first.",
  flags: z.object({}),
  result,
  schema: "seo.extract@1",
  errors: ["MISSING_ARTIFACT", "INVALID_ARTIFACT", "INVALID_INPUT"],
  stage: { writes: "extract", reads: ["crawl"] },
  examples: [{ argv: ["--run-dir", "./run"], summary: "Parse the pages crawled into ./run." }],
  async run(ctx) {
    const crawl = ctx.runDir.read<CrawlData>("crawl").data;
    const { PageWriter, readPages, removeStale } = await import("../lib/page-store.ts");
    const dir = ctx.runDir.path;
    // Page by page, crawl's pages file to extract's: the site is never held in memory.
    const writer = ctx.dryRun ? null : new PageWriter<ExtractedPage>(dir, "extract", (t) => ctx.runDir.redact(t));
    const tally = { pages: 0, html_pages: 0, links: 0, images: 0 };
    try {
      for (const p of readPages(dir, "crawl", crawl)) {
        // A crawl.json of an older seo holds each page's HTML, not what it says.
        if (p.parsed === undefined)
          throw new KitError(
            "INVALID_ARTIFACT",
            `crawl.json in ${dir} was written by an older seo (it holds pages' HTML, not what the crawl parsed from it)`,
            {
              hint: `run \`seo crawl\` again with --run-dir ${dir}`,
            },
          );
        const page = extracted(p);
        writer?.write(page);
        tally.pages++;
        if (page.html) tally.html_pages++;
        tally.links += page.links.length;
        tally.images += page.images.length;
        ctx.progress("extracted pages", tally.pages, crawl.pages_file?.count);
      }
    } catch (e) {
      writer?.abandon();
      throw e;
    }
    const pagesFile = writer?.finish() ?? null;
    const data: ExtractData = {
      source: crawl.source,
      start_url: crawl.start_url,
      ...(pagesFile ? { pages_file: pagesFile } : {}),
      page_count: tally.pages,
      blocked: crawl.skipped
        .filter((s) => s.reason === "robots")
        .map((s) => ({ url: s.url, linked_from: s.linked_from })),
      robots: { url: crawl.robots.url, content: crawl.robots.content ?? null },
      max_body_bytes: crawl.options.max_body_bytes,
    };
    const written = pagesFile ? ctx.runDir.write("extract", data) : null;
    if (pagesFile) {
      removeStale(dir, "extract", pagesFile.file);
      // The index `page list`/`get` and `score` answer from, made now rather than by the first of them.
      const { pageIndex } = await import("../lib/page-index.ts");
      pageIndex(dir, pagesFile);
    }
    ctx.setOutcome({ realized: tally.pages });
    return { ...tally, dry_run: ctx.dryRun, artifact: written?.path ?? null };
  },
});
