/**
 * One pass of htmlparser2 over a page: everything the audit rules read.
 * Text is whitespace-collapsed; URLs are resolved against <base href> when
 * the page has one, as a browser would.
 */
import { Parser } from "htmlparser2";
import { normalizeUrl } from "./url.ts";
import { toLink } from "./anchors.ts";
import { countWords } from "./words.ts";

export { crawlableAnchor } from "./anchors.ts";

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

export function parsePage(html: string, pageUrl: string): ParsedPage {
  const out: ParsedPage = {
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
  let base = pageUrl;
  type RawLink = {
    raw: string | null;
    rel: string | null;
    text: string[];
    lang: string | null;
    attrs: Readonly<Record<string, string>>;
  };
  const rawLinks: RawLink[] = [];
  const rawImages: (ParsedImage & { src: string | null })[] = [];
  const stack: Open[] = [];
  // Lighthouse reads metas, canonicals and hreflang links from <head> only: where a browser's parser puts them.
  let inHead = true;
  let skipDepth = 0;
  let titleText: string[] | null = null;
  let heading: { level: number; text: string[] } | null = null;
  let openLink: RawLink | null = null;
  let words = 0;

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        const parent = stack.at(-1);
        const hidden = (parent?.hidden ?? false) || attrs.hidden !== undefined || HIDING_STYLE.test(attrs.style ?? "");
        const ariaHidden =
          hidden || (parent?.ariaHidden ?? false) || (attrs["aria-hidden"] ?? "").trim().toLowerCase() === "true";
        const lang = attrs.lang !== undefined ? attrs.lang.trim() || null : (parent?.lang ?? null);
        stack.push({ name, hidden, ariaHidden, lang });
        if (!HEAD_TAGS.has(name)) inHead = false;
        if (SKIP_TEXT.has(name)) skipDepth++;
        switch (name) {
          case "html":
            if (attrs.lang !== undefined) out.lang = attrs.lang.trim();
            break;
          case "base":
            if (attrs.href) base = normalizeUrl(attrs.href, pageUrl) ?? base;
            break;
          case "title":
            if (!stack.some((o) => o.name === "svg")) {
              out.title_count++;
              if (out.title_count === 1) titleText = [];
            }
            break;
          case "meta": {
            const key = (attrs.name ?? "").toLowerCase();
            const content = attrs.content ?? "";
            if (!inHead) break;
            if (key === "description") {
              out.description_count++;
              out.meta_description ??= collapse(content);
            } else if (ROBOTS_META_NAMES.has(key)) out.robots_metas.push({ name: key, content });
            else if (key === "viewport") out.viewport ??= content.trim();
            break;
          }
          case "link": {
            // Lighthouse matches rel as a whole (lower-cased), and skips a canonical with an empty href.
            const rel = (attrs.rel ?? "").toLowerCase();
            if (!inHead || stack.some((o) => o.name === "svg")) break;
            if (rel === "canonical" && attrs.href) out.canonical_raw.push(attrs.href);
            if (rel === "alternate" && attrs.hreflang)
              out.hreflang.push({ lang: attrs.hreflang, href: attrs.href ?? null, raw: attrs.href ?? "" });
            break;
          }
          case "a":
          case "area":
            {
              const link: RawLink = { raw: attrs.href ?? null, rel: attrs.rel ?? null, text: [], lang, attrs };
              if (name === "area") link.text.push(attrs.alt ?? "");
              rawLinks.push(link);
              openLink = link;
            }
            break;
          case "img": {
            // A link's text is its innerText, as Lighthouse reads it: an image's alt is not part of it.
            const role = (attrs.role ?? "").trim().toLowerCase().split(/\s+/)[0] ?? "";
            const named = [attrs["aria-label"], attrs["aria-labelledby"], attrs.title].some(
              (v) => (v ?? "").trim() !== "",
            );
            rawImages.push({
              src: attrs.src ?? null,
              alt: attrs.alt ?? null,
              hidden: ariaHidden,
              named,
              presentational: role === "none" || role === "presentation",
            });
            break;
          }
          default:
            if (/^h[1-6]$/.test(name)) heading = { level: Number(name[1]), text: [] };
        }
      },
      ontext(text) {
        if (titleText && stack.at(-1)?.name === "title") titleText.push(text);
        if (heading) heading.text.push(text);
        if (openLink && skipDepth === 0 && !stack.at(-1)?.hidden) openLink.text.push(text);
        if (skipDepth === 0) {
          words += countWords(text);
          if (inHead && /\S/.test(text)) inHead = false;
        }
      },
      onclosetag(name) {
        // Pop to the matching open tag; htmlparser2 closes implied tags for us.
        const at = stack.findLastIndex((o) => o.name === name);
        if (at !== -1) stack.length = at;
        if (SKIP_TEXT.has(name)) skipDepth = Math.max(0, skipDepth - 1);
        if (name === "title" && titleText) {
          out.title = collapse(titleText.join(""));
          titleText = null;
        }
        if (heading && name === `h${heading.level}`) {
          if (heading.level === 1) out.h1_count++;
          if (out.headings.length < MAX_HEADINGS)
            out.headings.push({ level: heading.level, text: collapse(heading.text.join("")) });
          heading = null;
        }
        if ((name === "a" || name === "area") && openLink) openLink = null;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();

  out.word_count = words;
  out.robots_meta = out.robots_metas.length ? out.robots_metas.map((r) => r.content.trim()).join(", ") : null;
  const firstCanonical = out.canonical_raw[0];
  out.canonical = firstCanonical === undefined ? null : normalizeUrl(firstCanonical, base);
  out.hreflang = out.hreflang.map((h) => ({ ...h, href: h.raw ? normalizeUrl(h.raw, base) : null }));
  out.links = rawLinks.map((l) => toLink(l, base, pageUrl));
  out.images = rawImages.map((i) => ({
    ...i,
    src: i.src === null ? null : (normalizeUrl(i.src, base) ?? i.src),
    alt: i.alt === null ? null : /^\s+$/.test(i.alt) ? " " : collapse(i.alt),
  }));
  return out;
}
