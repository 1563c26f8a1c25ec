/**
 * What htmlparser2 tells of a page as it parses it, gathered into a
 * ParsedPage (html.ts): one reader per page, its handlers called in document
 * order. Text is whitespace-collapsed; URLs are resolved against <base href>
 * when the page has one, as a browser would.
 */
import { type Handler, Parser } from "htmlparser2";
import { toLink } from "./anchors.ts";
import type { ParsedImage, ParsedPage } from "./html.ts";
import { normalizeUrl } from "./url.ts";
import { countWords } from "./words.ts";

/**
 * Headings are kept for display only (h1_count counts every h1), so they are
 * bounded; links and images are all kept, since rules judge each one: a
 * page's size is bounded by --max-body-bytes instead.
 */
const MAX_HEADINGS = 200;

const SKIP_TEXT = new Set(["script", "style", "noscript", "template", "svg", "title"]);
/** Elements a browser's parser puts in <head> even after </head>: anything else (or text) starts the body. */
const HEAD_TAGS = new Set([
  "html",
  "head",
  "title",
  "meta",
  "link",
  "base",
  "script",
  "style",
  "noscript",
  "template",
  "basefont",
  "bgsound",
  "noframes",
]);
/** The robots metas Lighthouse's is-crawlable reads: the generic one and its four named bots'. */
export const ROBOTS_META_NAMES = new Set(["robots", "googlebot", "bingbot", "duckduckbot", "archive.org_bot"]);
const HIDING_STYLE = /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)\b/i;
interface Open {
  name: string;
  /** Not rendered: its text is not in innerText. */
  hidden: boolean;
  /** Hidden from assistive technology as well (aria-hidden). */
  ariaHidden: boolean;
  lang: string | null;
}
const collapse = (s: string): string => s.replace(/\s+/g, " ").trim();

type RawLink = {
  raw: string | null;
  rel: string | null;
  text: string[];
  lang: string | null;
  attrs: Readonly<Record<string, string>>;
};
type Attrs = Record<string, string>;

export class PageReader implements Partial<Handler> {
  readonly out: ParsedPage = {
    title: null,
    title_count: 0,
    meta_description: null,
    description_count: 0,
    headings: [],
    h1_count: 0,
    canonical_raw: [],
    canonical: null,
    lang: null,
    hreflang: [],
    robots_meta: null,
    robots_metas: [],
    viewport: null,
    links: [],
    images: [],
    word_count: 0,
  };
  #base: string;
  readonly #links: RawLink[] = [];
  readonly #images: ParsedImage[] = [];
  readonly #stack: Open[] = [];
  // Lighthouse reads metas, canonicals and hreflang links from <head> only: where a browser's parser puts them.
  #inHead = true;
  #skipDepth = 0;
  #titleText: string[] | null = null;
  #heading: { level: number; text: string[] } | null = null;
  #openLink: RawLink | null = null;
  #words = 0;

  constructor(private readonly pageUrl: string) {
    this.#base = pageUrl;
  }

  onopentag(name: string, attrs: Attrs): void {
    const parent = this.#stack.at(-1);
    const hidden = (parent?.hidden ?? false) || attrs.hidden !== undefined || HIDING_STYLE.test(attrs.style ?? "");
    const ariaHidden =
      hidden || (parent?.ariaHidden ?? false) || (attrs["aria-hidden"] ?? "").trim().toLowerCase() === "true";
    const lang = attrs.lang !== undefined ? attrs.lang.trim() || null : (parent?.lang ?? null);
    this.#stack.push({ name, hidden, ariaHidden, lang });
    if (!HEAD_TAGS.has(name)) this.#inHead = false;
    if (SKIP_TEXT.has(name)) this.#skipDepth++;
    if (name === "html" && attrs.lang !== undefined) this.out.lang = attrs.lang.trim();
    else if (name === "base" && attrs.href) this.#base = normalizeUrl(attrs.href, this.pageUrl) ?? this.#base;
    else if (name === "title") this.#openTitle();
    else if (name === "meta") this.#meta(attrs);
    else if (name === "link") this.#link(attrs);
    else if (name === "a" || name === "area") this.#anchor(name, attrs, lang);
    else if (name === "img") this.#image(attrs, ariaHidden);
    else if (/^h[1-6]$/.test(name)) this.#heading = { level: Number(name[1]), text: [] };
  }

  #openTitle(): void {
    if (this.#stack.some((o) => o.name === "svg")) return;
    this.out.title_count++;
    if (this.out.title_count === 1) this.#titleText = [];
  }

  #meta(attrs: Attrs): void {
    if (!this.#inHead) return;
    const key = (attrs.name ?? "").toLowerCase();
    const content = attrs.content ?? "";
    if (key === "description") {
      this.out.description_count++;
      this.out.meta_description ??= collapse(content);
    } else if (ROBOTS_META_NAMES.has(key)) this.out.robots_metas.push({ name: key, content });
    else if (key === "viewport") this.out.viewport ??= content.trim();
  }

  #link(attrs: Attrs): void {
    // Lighthouse matches rel as a whole (lower-cased), and skips a canonical with an empty href.
    const rel = (attrs.rel ?? "").toLowerCase();
    if (!this.#inHead || this.#stack.some((o) => o.name === "svg")) return;
    if (rel === "canonical" && attrs.href) this.out.canonical_raw.push(attrs.href);
    if (rel === "alternate" && attrs.hreflang)
      this.out.hreflang.push({ lang: attrs.hreflang, href: attrs.href ?? null, raw: attrs.href ?? "" });
  }

  #anchor(name: string, attrs: Attrs, lang: string | null): void {
    const link: RawLink = { raw: attrs.href ?? null, rel: attrs.rel ?? null, text: [], lang, attrs };
    if (name === "area") link.text.push(attrs.alt ?? "");
    this.#links.push(link);
    this.#openLink = link;
  }

  #image(attrs: Attrs, hidden: boolean): void {
    // A link's text is its innerText, as Lighthouse reads it: an image's alt is not part of it.
    const role = (attrs.role ?? "").trim().toLowerCase().split(/\s+/)[0] ?? "";
    const named = [attrs["aria-label"], attrs["aria-labelledby"], attrs.title].some((v) => (v ?? "").trim() !== "");
    this.#images.push({
      src: attrs.src ?? null,
      alt: attrs.alt ?? null,
      hidden,
      named,
      presentational: role === "none" || role === "presentation",
    });
  }

  ontext(text: string): void {
    if (this.#titleText && this.#stack.at(-1)?.name === "title") this.#titleText.push(text);
    if (this.#heading) this.#heading.text.push(text);
    if (this.#openLink && this.#skipDepth === 0 && !this.#stack.at(-1)?.hidden) this.#openLink.text.push(text);
    if (this.#skipDepth === 0) {
      this.#words += countWords(text);
      if (this.#inHead && /\S/.test(text)) this.#inHead = false;
    }
  }

  onclosetag(name: string): void {
    // Pop to the matching open tag; htmlparser2 closes implied tags for us.
    const at = this.#stack.findLastIndex((o) => o.name === name);
    if (at !== -1) this.#stack.length = at;
    if (SKIP_TEXT.has(name)) this.#skipDepth = Math.max(0, this.#skipDepth - 1);
    if (name === "title" && this.#titleText) {
      this.out.title = collapse(this.#titleText.join(""));
      this.#titleText = null;
    }
    const heading = this.#heading;
    if (heading && name === `h${heading.level}`) {
      if (heading.level === 1) this.out.h1_count++;
      if (this.out.headings.length < MAX_HEADINGS)
        this.out.headings.push({ level: heading.level, text: collapse(heading.text.join("")) });
      this.#heading = null;
    }
    if ((name === "a" || name === "area") && this.#openLink) this.#openLink = null;
  }

  /** The page, once the parser has ended: URLs resolved against the base the page named. */
  finish(): ParsedPage {
    const out = this.out;
    const base = this.#base;
    out.word_count = this.#words;
    out.robots_meta = out.robots_metas.length ? out.robots_metas.map((r) => r.content.trim()).join(", ") : null;
    const firstCanonical = out.canonical_raw[0];
    out.canonical = firstCanonical === undefined ? null : normalizeUrl(firstCanonical, base);
    out.hreflang = out.hreflang.map((h) => ({ ...h, href: h.raw ? normalizeUrl(h.raw, base) : null }));
    out.links = this.#links.map((l) => toLink(l, base, this.pageUrl));
    out.images = this.#images.map((i) => ({
      ...i,
      src: i.src === null ? null : (normalizeUrl(i.src, base) ?? i.src),
      alt: i.alt === null ? null : /^\s+$/.test(i.alt) ? " " : collapse(i.alt),
    }));
    return out;
  }
}

export function parsePage(html: string, pageUrl: string): ParsedPage {
  const reader = new PageReader(pageUrl);
  const parser = new Parser(reader, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
  parser.write(html);
  parser.end();
  return reader.finish();
}
