/**
 * The edit each fix action makes, from the page's text and the item's params
 * alone: what the planner writes into an item, and what the gate's read-back
 * and apply recompute to hold an item to (fix-effects.ts).
 */
import type { Edit } from "./edits.ts";
import { descriptionCandidates } from "./describe-text.ts";
import { attrValueSpan, escapeAttr, indentAt, type Located, type TagSpan } from "./source.ts";

/** Inserts a line after a tag, indented like that tag's line. */
const lineAfter = (text: string, tagEnd: number, tagStart: number, line: string): Edit => ({
  at: tagEnd,
  remove: "",
  insert: `\n${indentAt(text, tagStart)}${line}`,
});

export const VIEWPORT_CONTENT = "width=device-width, initial-scale=1";
export const VIEWPORT = `<meta name="viewport" content="${VIEWPORT_CONTENT}">`;

/** A lang attribute on <html>, which has none. */
export const setLangEdits = (_t: string, at: Located, lang: string): Edit[] | null =>
  at.html && !("lang" in at.html.attrs)
    ? [{ at: at.html.start + "<html".length, remove: "", insert: ` lang="${escapeAttr(lang)}"` }]
    : null;

/** The viewport meta tag, after the charset (or first in <head>). */
export function viewportEdits(t: string, at: Located): Edit[] | null {
  const anchor = at.charset ?? at.headOpen;
  if (at.viewport || !anchor) return null;
  return [
    anchor === at.headOpen
      ? { at: anchor.end, remove: "", insert: `\n${indentAt(t, anchor.start)}  ${VIEWPORT}` }
      : lineAfter(t, anchor.end, anchor.start, VIEWPORT),
  ];
}

/** A canonical link naming `href`, after the description, viewport or charset. */
export function canonicalEdits(t: string, at: Located, href: string): Edit[] | null {
  const anchor = at.description ?? at.viewport ?? at.charset;
  if (at.canonicals.length > 0 || !anchor) return null;
  return [lineAfter(t, anchor.end, anchor.start, `<link rel="canonical" href="${escapeAttr(href)}">`)];
}

/**
 * A meta description after the title (or the charset): `content` when the
 * page's own main text offers it (descriptionCandidates; the plan chose it,
 * unique on the site), else the first the text offers.
 */
export function descriptionEdits(t: string, at: Located, content?: string): Edit[] | null {
  const offered = descriptionCandidates(at.paragraphs);
  if (content === undefined || !offered.includes(content)) content = offered[0];
  const anchor = at.titleClose ?? at.charset;
  if (!content || at.description || !anchor) return null;
  const tagStart = at.titleClose ? t.lastIndexOf("<title", anchor.start) : anchor.start;
  return [lineAfter(t, anchor.end, tagStart, `<meta name="description" content="${escapeAttr(content)}">`)];
}

/** The removal of one canonical link: its whole line when it stands alone on it, else the tag only. */
export function canonicalRemoval(t: string, c: TagSpan): Edit {
  const lineStart = t.lastIndexOf("\n", c.start - 1);
  const before = t.slice(lineStart + 1, c.start);
  const start = /^[ \t]*$/.test(before) && lineStart >= 0 ? lineStart : c.start;
  return { at: start, remove: t.slice(start, c.end), insert: "" };
}

/** Every link's href that is exactly `from`, replaced by `to` (escaped: a browser reads it back as `to`). */
export function brokenLinkEdits(t: string, at: Located, from: string, to: string): Edit[] | null {
  const spans = at.anchors
    .filter((a) => a.attrs.href === from)
    .map((a) => attrValueSpan(t, a, "href"))
    .filter((s) => s !== null && t.slice(s.start, s.end) === from);
  return spans.length ? spans.map((s) => ({ at: s!.start, remove: from, insert: escapeAttr(to) })) : null;
}
