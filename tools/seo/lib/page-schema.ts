/** A page as extract records it and `page get` shows it. */
import * as z from "agent-cli-kit/schema";
import { describe } from "agent-cli-kit";

export const link = z.object({
  href: describe(z.nullable(z.string()), "Absolute URL, or null when the href is missing or not a navigable URL."),
  raw: z.nullable(z.string()),
  text: z.string(),
  rel: z.nullable(z.string()),
  lang: describe(
    z.optional(z.nullable(z.string())),
    "The language of the link's text: the lang of its nearest element that states one.",
  ),
  internal: z.boolean(),
  crawlable: z.boolean(),
});

export const extractedPage = z.object({
  url: z.string(),
  final_url: z.string(),
  status: describe(z.number(), "HTTP status of the final response; 0 when the request failed."),
  depth: z.number(),
  size: describe(z.nullable(z.number()), "The HTML's full size in bytes; null when no HTML was read."),
  cut: describe(
    z.boolean(),
    "Only the first --max-body-bytes of the HTML were read and judged (a `body-cut` finding).",
  ),
  file: describe(z.nullable(z.string()), "For a folder crawl: the file, relative to the folder."),
  content_type: z.nullable(z.string()),
  encoding: describe(
    z.nullable(z.object({ name: z.string(), source: z.enum(["bom", "content-type", "meta", "fallback"]) })),
    "The encoding the HTML was decoded from (WHATWG name) and what declared it: a byte order mark, the Content-Type header, a <meta>, or the fallback (UTF-8 when valid, else windows-1252). Null: not HTML.",
  ),
  redirects: z.number(),
  html: z.boolean(),
  title: z.nullable(z.string()),
  title_count: z.number(),
  meta_description: z.nullable(z.string()),
  description_count: z.number(),
  headings: z.array(z.object({ level: z.number(), text: z.string() })),
  h1_count: z.number(),
  canonical: z.nullable(z.string()),
  canonical_raw: z.array(z.string()),
  lang: z.nullable(z.string()),
  hreflang: z.array(z.object({ lang: z.string(), href: z.nullable(z.string()), raw: z.string() })),
  robots_meta: z.nullable(z.string()),
  robots_metas: describe(
    z.optional(z.array(z.object({ name: z.string(), content: z.string() }))),
    "The <head>'s robots metas by name: robots, googlebot, bingbot, duckduckbot, archive.org_bot.",
  ),
  x_robots_tag: z.nullable(z.string()),
  viewport: z.nullable(z.string()),
  links: z.array(link),
  images: z.array(
    z.object({
      src: z.nullable(z.string()),
      alt: describe(z.nullable(z.string()), 'Whitespace-collapsed; an alt of only spaces is " ".'),
      hidden: z.optional(describe(z.boolean(), "Not rendered, or aria-hidden: not judged by image-alt.")),
      named: z.optional(describe(z.boolean(), "A non-empty aria-label, aria-labelledby or title names it.")),
      presentational: z.optional(describe(z.boolean(), 'role="presentation" or role="none".')),
    }),
  ),
  word_count: z.number(),
});
export type ExtractedPage = z.output<typeof extractedPage>;
