/**
 * One pass of htmlparser2 over a page: everything the audit rules read.
 * Text is whitespace-collapsed; URLs are resolved against <base href> when
 * the page has one, as a browser would.
 */
import { Parser } from "htmlparser2";
import { normalizeUrl, sameOrigin } from "./url.ts";

export interface ParsedLink {
  href: string | null;
  raw: string | null;
  text: string;
  rel: string | null;
  internal: boolean;
  crawlable: boolean;
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
  viewport: string | null;
  links: ParsedLink[];
  images: { src: string | null; alt: string | null }[];
  word_count: number;
}

/**
 * Headings are kept for display only (h1_count counts every h1), so they are
 * bounded; links and images are all kept, since rules judge each one: a
 * page's size is bounded by --max-body-bytes instead.
 */
const MAX_HEADINGS = 200;

const SKIP_TEXT = new Set(["script", "style", "noscript", "template", "svg", "title"]);
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;
const collapse = (s: string): string => s.replace(/\s+/g, " ").trim();
/** How many words `text` holds, counted without collecting them (most of a page's text is only counted). */
function countWords(text: string): number {
  let n = 0;
  WORD.lastIndex = 0;
  while (WORD.test(text)) n++;
  return n;
}
const relTokens = (rel: string | undefined): string[] => (rel ?? "").toLowerCase().split(/\s+/).filter(Boolean);

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
    viewport: null,
    links: [],
    images: [],
    word_count: 0,
  };
  let base = pageUrl;
  type RawLink = { raw: string | null; rel: string | null; text: string[]; attrs: Readonly<Record<string, string>> };
  const rawLinks: RawLink[] = [];
  const rawImages: { src: string | null; alt: string | null }[] = [];
  const robots: string[] = [];
  const stack: string[] = [];
  let skipDepth = 0;
  let titleText: string[] | null = null;
  let heading: { level: number; text: string[] } | null = null;
  let openLink: RawLink | null = null;
  let words = 0;

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        stack.push(name);
        if (SKIP_TEXT.has(name)) skipDepth++;
        switch (name) {
          case "html":
            if (attrs.lang !== undefined) out.lang = attrs.lang.trim();
            break;
          case "base":
            if (attrs.href) base = normalizeUrl(attrs.href, pageUrl) ?? base;
            break;
          case "title":
            if (!stack.includes("svg")) {
              out.title_count++;
              if (out.title_count === 1) titleText = [];
            }
            break;
          case "meta": {
            const key = (attrs.name ?? "").toLowerCase();
            const content = attrs.content ?? "";
            if (key === "description") {
              out.description_count++;
              out.meta_description ??= collapse(content);
            } else if (key === "robots" || key === "googlebot") robots.push(content);
            else if (key === "viewport") out.viewport ??= content.trim();
            break;
          }
          case "link": {
            const rel = relTokens(attrs.rel);
            if (rel.includes("canonical") && attrs.href !== undefined) out.canonical_raw.push(attrs.href);
            if (rel.includes("alternate") && attrs.hreflang !== undefined) out.hreflang.push({ lang: attrs.hreflang, href: attrs.href ?? null, raw: attrs.href ?? "" });
            break;
          }
          case "a":
          case "area":
            {
              const link: RawLink = { raw: attrs.href ?? null, rel: attrs.rel ?? null, text: [], attrs };
              if (name === "area") link.text.push(attrs.alt ?? "");
              rawLinks.push(link);
              openLink = link;
            }
            break;
          case "img":
            rawImages.push({ src: attrs.src ?? null, alt: attrs.alt ?? null });
            // An image's alt is the accessible name of a link around it.
            if (openLink && attrs.alt) openLink.text.push(attrs.alt);
            break;
          default:
            if (/^h[1-6]$/.test(name)) heading = { level: Number(name[1]), text: [] };
        }
      },
      ontext(text) {
        if (titleText && stack.at(-1) === "title") titleText.push(text);
        if (heading) heading.text.push(text);
        if (openLink) openLink.text.push(text);
        if (skipDepth === 0) words += countWords(text);
      },
      onclosetag(name) {
        // Pop to the matching open tag; htmlparser2 closes implied tags for us.
        const at = stack.lastIndexOf(name);
        if (at !== -1) stack.length = at;
        if (SKIP_TEXT.has(name)) skipDepth = Math.max(0, skipDepth - 1);
        if (name === "title" && titleText) {
          out.title = collapse(titleText.join(""));
          titleText = null;
        }
        if (heading && name === `h${heading.level}`) {
          if (heading.level === 1) out.h1_count++;
          if (out.headings.length < MAX_HEADINGS) out.headings.push({ level: heading.level, text: collapse(heading.text.join("")) });
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
  out.robots_meta = robots.length ? robots.map((r) => r.trim()).join(", ") : null;
  const firstCanonical = out.canonical_raw[0];
  out.canonical = firstCanonical === undefined ? null : normalizeUrl(firstCanonical, base);
  out.hreflang = out.hreflang.map((h) => ({ ...h, href: h.raw ? normalizeUrl(h.raw, base) : null }));
  out.links = rawLinks.map((l) => toLink(l, base, pageUrl));
  out.images = rawImages.map((i) => ({ src: i.src === null ? null : (normalizeUrl(i.src, base) ?? i.src), alt: i.alt === null ? null : collapse(i.alt) }));
  return out;
}

/** Attributes that only make sense with an href (HTML: "must be omitted if the href attribute is not present"). */
const HREF_ASSOCIATED = ["target", "download", "ping", "rel", "hreflang", "type", "referrerpolicy"];

/**
 * Lighthouse 12's `crawlable-anchors` judgement, so a finding of that id means
 * what it means there: a link with a role, a mailto: link, a named anchor
 * (`<a id>` with no href), an `<a name>`, and a placeholder marked
 * aria-current are not links to crawl; a file: URL, a missing href,
 * javascript:void(0) and an href that is not a URL are uncrawlable.
 */
export function crawlableAnchor(attrs: Readonly<Record<string, string>>, base: string): boolean {
  const raw = (attrs.href ?? "").replace(/\s/g, "");
  if ((attrs.role ?? "").trim()) return true;
  if (raw.startsWith("mailto:")) return true;
  if (raw === "" && attrs.id) return true;
  if (raw.startsWith("file:")) return false;
  if ((attrs.name ?? "").trim()) return true;
  const placeholder = attrs.href === undefined && !HREF_ASSOCIATED.some((a) => a in attrs) && ["page", "location"].includes(attrs["aria-current"] ?? "");
  if (placeholder) return true;
  if (attrs.href === undefined) return false;
  if (/javascript:void(\(|)0(\)|)/.test(raw)) return false;
  return URL.canParse(raw, base);
}

function toLink(l: { raw: string | null; rel: string | null; text: string[]; attrs: Readonly<Record<string, string>> }, base: string, pageUrl: string): ParsedLink {
  const raw = l.raw;
  const text = collapse(l.text.join(" "));
  const trimmed = raw?.trim() ?? "";
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  const crawlable = crawlableAnchor(l.attrs, base);
  const href = raw !== null && trimmed !== "" && !trimmed.startsWith("#") && (scheme === undefined || scheme === "http" || scheme === "https") ? normalizeUrl(trimmed, base) : null;
  return { href, raw, text, rel: l.rel, internal: href !== null && sameOrigin(href, pageUrl), crawlable };
}
