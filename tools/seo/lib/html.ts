/** What a page's HTML says: everything the audit rules read, parsed once (html-parse.ts). */

export interface ParsedLink {
  href: string | null;
  raw: string | null;
  text: string;
  rel: string | null;
  /** The language of the link's text: the lang of its nearest element that has one (Lighthouse's textLang); null: none stated. */
  lang: string | null;
  internal: boolean;
  crawlable: boolean;
}

export interface ParsedImage {
  src: string | null;
  /** Whitespace-collapsed; an alt of only spaces is kept as " " (Lighthouse fails it, unlike alt=""). */
  alt: string | null;
  /** Not rendered (hidden, display:none, visibility:hidden) or aria-hidden: Lighthouse's image-alt does not judge it. */
  hidden: boolean;
  /** A non-empty aria-label, aria-labelledby or title names it. */
  named: boolean;
  /** role="presentation" or role="none". */
  presentational: boolean;
}

export interface ParsedPage {
  title: string | null;
  title_count: number;
  meta_description: string | null;
  description_count: number;
  headings: { level: number; text: string }[];
  h1_count: number;
  canonical_raw: string[];
  canonical: string | null;
  lang: string | null;
  hreflang: { lang: string; href: string | null; raw: string }[];
  robots_meta: string | null;
  /** The <head>'s robots metas by name (robots, googlebot, bingbot, duckduckbot, archive.org_bot), as Lighthouse's is-crawlable reads them. */
  robots_metas: { name: string; content: string }[];
  viewport: string | null;
  links: ParsedLink[];
  images: ParsedImage[];
  word_count: number;
}
