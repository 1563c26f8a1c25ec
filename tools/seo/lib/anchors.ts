/** Links as Lighthouse's crawlable-anchors audit judges them, and each link's parsed form. */
import { normalizeUrl, sameOrigin } from "./url.ts";
import type { ParsedLink } from "./html.ts";

const collapse = (s: string): string => s.replace(/\s+/g, " ").trim();

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
  const placeholder =
    attrs.href === undefined &&
    !HREF_ASSOCIATED.some((a) => a in attrs) &&
    ["page", "location"].includes(attrs["aria-current"] ?? "");
  if (placeholder) return true;
  if (attrs.href === undefined) return false;
  if (/javascript:void(\(|)0(\)|)/.test(raw)) return false;
  return URL.canParse(raw, base);
}

export function toLink(
  l: {
    raw: string | null;
    rel: string | null;
    text: string[];
    lang: string | null;
    attrs: Readonly<Record<string, string>>;
  },
  base: string,
  pageUrl: string,
): ParsedLink {
  const raw = l.raw;
  const text = collapse(l.text.join(" "));
  const trimmed = raw?.trim() ?? "";
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  const crawlable = crawlableAnchor(l.attrs, base);
  const href =
    raw !== null &&
    trimmed !== "" &&
    !trimmed.startsWith("#") &&
    (scheme === undefined || scheme === "http" || scheme === "https")
      ? normalizeUrl(trimmed, base)
      : null;
  return { href, raw, text, rel: l.rel, lang: l.lang, internal: href !== null && sameOrigin(href, pageUrl), crawlable };
}
