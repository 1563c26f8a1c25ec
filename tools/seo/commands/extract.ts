import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError } from "agent-cli-kit";
import type { CrawlData, ExtractData } from "../lib/artifacts.ts";
import { type ExtractedPage } from "../page-schema.ts";

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
    // A crawl.json of an older seo holds each page's HTML, not what it says.
    if (crawl.pages.some((p) => p.parsed === undefined))
      throw new KitError("INVALID_ARTIFACT", `crawl.json in ${ctx.runDir.path} was written by an older seo (it holds pages' HTML, not what the crawl parsed from it)`, {
        hint: `run \`seo crawl\` again with --run-dir ${ctx.runDir.path}`,
      });
    const pages: ExtractedPage[] = crawl.pages.map((p) => {
      const parsed = p.parsed;
      return {
        url: p.url,
        final_url: p.final_url,
        status: p.status,
        depth: p.depth,
        file: p.file,
        content_type: p.content_type,
        encoding: p.encoding ?? null,
        size: p.size ?? null,
        cut: p.cut ?? false,
        redirects: p.redirects.length,
        html: parsed !== null,
        title: parsed?.title ?? null,
        title_count: parsed?.title_count ?? 0,
        meta_description: parsed?.meta_description ?? null,
        description_count: parsed?.description_count ?? 0,
        headings: parsed?.headings ?? [],
        h1_count: parsed?.h1_count ?? 0,
        canonical: parsed?.canonical ?? null,
        canonical_raw: parsed?.canonical_raw ?? [],
        lang: parsed?.lang ?? null,
        hreflang: parsed?.hreflang ?? [],
        robots_meta: parsed?.robots_meta ?? null,
        robots_metas: parsed?.robots_metas ?? [],
        x_robots_tag: p.x_robots_tag,
        viewport: parsed?.viewport ?? null,
        links: parsed?.links ?? [],
        images: parsed?.images ?? [],
        word_count: parsed?.word_count ?? 0,
      };
    });
    const data: ExtractData = {
      source: crawl.source,
      start_url: crawl.start_url,
      pages,
      blocked: crawl.skipped.filter((s) => s.reason === "robots").map((s) => ({ url: s.url, linked_from: s.linked_from })),
      robots: { url: crawl.robots.url, content: crawl.robots.content ?? null },
      max_body_bytes: crawl.options.max_body_bytes,
    };
    const written = ctx.dryRun ? null : ctx.runDir.write("extract", data);
    ctx.setOutcome({ realized: pages.length });
    return {
      pages: pages.length,
      html_pages: pages.filter((p) => p.html).length,
      links: pages.reduce((n, p) => n + p.links.length, 0),
      images: pages.reduce((n, p) => n + p.images.length, 0),
      dry_run: ctx.dryRun,
      artifact: written?.path ?? null,
    };
  },
});
