/** A crawled page as `seo extract` records it: what its HTML said, flattened beside what the crawl saw. */
import type { CrawledPage } from "./crawler.ts";
import type { ExtractedPage } from "./page-schema.ts";

export function extracted(p: CrawledPage): ExtractedPage {
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
}
