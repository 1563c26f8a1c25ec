/**
 * Turns audit findings on a static-site folder into plan items: precise,
 * minimal edits that leave the rest of each file byte-for-byte unchanged.
 * Items on one file are planned in order against the text the previous ones
 * leave, each with the file's hash before and after it.
 */
import { readFileSync } from "node:fs";
import { posix } from "node:path";
import type { ItemInput } from "agent-cli-kit/writes";
import { editDistance, KitError, nearest, resolveWithin, sha256 } from "agent-cli-kit";
import type { Finding } from "../schemas.ts";
import type { ExtractedPage } from "../page-schema.ts";
import { applyEdits, type Edit } from "./edits.ts";
import { attrValueSpan, escapeAttr, indentAt, locate, type Located } from "./source.ts";

import type { FixAction } from "./fix-actions.ts";

interface Fix {
  action: FixAction;
  reason: string;
  /** Edits against the text as it stands when this fix's turn comes. */
  edits(text: string, at: Located): Edit[] | null;
  extra: Record<string, unknown>;
}

const LANG_TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** A meta description from the page's own words: whole sentences up to ~155 characters. */
export function describeFromText(paragraphs: readonly string[]): string | null {
  const text = paragraphs.join(" ").trim();
  if (text.split(/\s+/).length < 8) return null;
  if (text.length <= 155) return text;
  let out = "";
  for (const s of sentencesOf(text)) {
    if ((out + s).trim().length > 155) break;
    out += s;
  }
  if (out.trim().length >= 50) return out.trim();
  const cut = text.slice(0, 152);
  return `${cut.slice(0, cut.lastIndexOf(" "))}…`;
}

const isStop = (c: string): boolean => c === "." || c === "!" || c === "?";

/**
 * The matches of /[^.!?]+[.!?]+(\s|$)/g, found in linear time: the regex
 * backtracks quadratically over a long run without sentence punctuation
 * (80 KB took seconds, 20 MB never finished).
 */
export function* sentencesOf(text: string): Generator<string> {
  let p = 0;
  while (p < text.length) {
    if (isStop(text[p]!)) {
      p++;
      continue;
    }
    let q = p;
    while (q < text.length && !isStop(text[q]!)) q++;
    if (q === text.length) return;
    let r = q;
    while (r < text.length && isStop(text[r]!)) r++;
    if (r === text.length) {
      yield text.slice(p);
      return;
    }
    if (/\s/.test(text[r]!)) {
      yield text.slice(p, r + 1);
      p = r + 1;
    } else p = r; // every start in [p, r) fails the same way
  }
}

/** Inserts a line after a tag, indented like that tag's line. */
const lineAfter = (text: string, tagEnd: number, tagStart: number, line: string): Edit => ({ at: tagEnd, remove: "", insert: `\n${indentAt(text, tagStart)}${line}` });

function fixesFor(page: ExtractedPage, findings: readonly Finding[], site: { lang: string; okPaths: string[] }): Fix[] {
  const fixes: Fix[] = [];
  const has = (rule: string) => findings.some((f) => f.rule === rule);
  if (has("html-lang"))
    fixes.push({
      action: "set-lang",
      reason: `<html> has no lang attribute; the site's pages use "${site.lang}"`,
      extra: { lang: site.lang },
      edits: (_t, at) => (at.html && !("lang" in at.html.attrs) ? [{ at: at.html.start + "<html".length, remove: "", insert: ` lang="${site.lang}"` }] : null),
    });
  if (has("viewport") && !page.viewport) {
    const line = `<meta name="viewport" content="width=device-width, initial-scale=1">`;
    fixes.push({
      action: "add-viewport",
      reason: "there is no viewport meta tag, so phones render the desktop layout",
      extra: {},
      edits: (t, at) => {
        const anchor = at.charset ?? at.headOpen;
        return at.viewport || !anchor ? null : [anchor === at.headOpen ? { at: anchor.end, remove: "", insert: `\n${indentAt(t, anchor.start)}  ${line}` } : lineAfter(t, anchor.end, anchor.start, line)];
      },
    });
  }
  if (has("canonical-missing") && /^https?:\/\//.test(page.final_url)) {
    const line = `<link rel="canonical" href="${escapeAttr(page.final_url)}">`;
    fixes.push({
      action: "add-canonical",
      reason: `the page declares no canonical URL; it is ${page.final_url}`,
      extra: { href: page.final_url },
      edits: (t, at) => {
        const anchor = at.description ?? at.viewport ?? at.charset;
        if (at.canonicals.length > 0 || !anchor) return null;
        return [lineAfter(t, anchor.end, anchor.start, line)];
      },
    });
  }
  const conflict = findings.find((f) => f.rule === "canonical" && Array.isArray(f.detail.canonicals));
  if (conflict)
    fixes.push({
      action: "remove-duplicate-canonical",
      reason: `${(conflict.detail.canonicals as string[]).length} different canonical URLs; keeping the one naming the page itself`,
      extra: {},
      edits: (t, at) => {
        if (at.canonicals.length < 2) return null;
        const keep = at.canonicals.find((c) => c.attrs.href === page.final_url) ?? at.canonicals[0]!;
        return at.canonicals
          .filter((c) => c !== keep)
          .map((c) => {
            // The whole line when the tag stands alone on it; else the tag only.
            const lineStart = t.lastIndexOf("\n", c.start - 1);
            const before = t.slice(lineStart + 1, c.start);
            const start = /^[ \t]*$/.test(before) && lineStart >= 0 ? lineStart : c.start;
            return { at: start, remove: t.slice(start, c.end), insert: "" };
          });
      },
    });
  if (findings.some((f) => f.rule === "meta-description") && page.description_count === 0)
    fixes.push({
      action: "add-meta-description",
      reason: "there is no meta description; this one is taken from the page's own opening text",
      extra: {},
      edits: (t, at) => {
        const content = describeFromText(at.paragraphs);
        const anchor = at.titleClose ?? at.charset;
        if (!content || at.description || !anchor) return null;
        const tagStart = at.titleClose ? t.lastIndexOf("<title", anchor.start) : anchor.start;
        return [lineAfter(t, anchor.end, tagStart, `<meta name="description" content="${escapeAttr(content)}">`)];
      },
    });
  const broken = new Map<string, Finding>();
  for (const f of findings) if (f.rule === "broken-link" && typeof f.detail.raw === "string") broken.set(f.detail.raw, f);
  for (const [raw, f] of broken) {
    const href = new URL(String(f.detail.href));
    const target = nearest(href.pathname, site.okPaths);
    if (!target || uniqueBest(href.pathname, site.okPaths) !== target) continue;
    const replacement = raw.startsWith("/") ? target : /^https?:/i.test(raw) ? new URL(target, href).toString() : posix.relative(posix.dirname(new URL(page.final_url).pathname), target) || ".";
    fixes.push({
      action: "fix-broken-link",
      reason: `links to ${raw}, which answers ${f.detail.status || "nothing"}; the only close match on the site is ${target}`,
      extra: { from: raw, to: replacement },
      edits: (t, at) => {
        const edits = at.anchors.filter((a) => a.attrs.href === raw).map((a) => attrValueSpan(t, a, "href")).filter((s) => s !== null && t.slice(s.start, s.end) === raw);
        return edits.length ? edits.map((s) => ({ at: s!.start, remove: raw, insert: replacement })) : null;
      },
    });
  }
  return fixes;
}

/** The closest path if no other path is as close; null when two tie. */
function uniqueBest(path: string, candidates: readonly string[]): string | null {
  const scored = candidates.map((c) => [c, editDistance(path, c)] as const).sort((a, b) => a[1] - b[1]);
  if (!scored[0] || scored[0][1] > 3 || (scored[1] && scored[1][1] === scored[0][1])) return null;
  return scored[0][0];
}

export function planFixes(root: string, pages: readonly ExtractedPage[], findings: readonly Finding[], langFlag: string | undefined, only: readonly string[] | undefined): ItemInput[] {
  const langs = pages.map((p) => p.lang).filter((l): l is string => !!l && LANG_TAG.test(l));
  const common = [...new Set(langs)].sort((a, b) => langs.filter((x) => x === b).length - langs.filter((x) => x === a).length)[0];
  const site = { lang: langFlag ?? common ?? "en", okPaths: pages.filter((p) => p.status === 200 && p.file?.endsWith(".html")).map((p) => new URL(p.final_url).pathname) };
  const items: ItemInput[] = [];
  const planned = new Set<string>(); // one file reached by two URLs is planned once
  for (const page of [...pages].sort((a, b) => (a.file ?? "").localeCompare(b.file ?? ""))) {
    if (!page.file || page.status !== 200 || planned.has(page.file)) continue;
    planned.add(page.file);
    const mine = findings.filter((f) => f.url === page.url);
    const fixes = fixesFor(page, mine, site).filter((f) => !only || only.includes(f.action));
    if (fixes.length === 0) continue;
    let text: string;
    try {
      const bytes = readFileSync(resolveWithin(root, page.file, "the site folder"));
      text = bytes.toString("utf8");
      if (!Buffer.from(text, "utf8").equals(bytes)) throw new Error("it is not valid UTF-8");
    } catch (e) {
      throw new KitError("INVALID_INPUT", `${page.file} cannot be planned: ${(e as Error).message}`, { hint: "crawl the folder again, then plan" });
    }
    // Located again only after a fix changed the text.
    let located: Located | null = null;
    for (const fix of fixes) {
      const edits = fix.edits(text, (located ??= locate(text)));
      if (!edits || edits.length === 0) continue;
      const after = applyEdits(text, edits);
      if (typeof after !== "string") continue;
      located = null;
      items.push({
        action: fix.action,
        reason: `${page.file}: ${fix.reason}`,
        params: { file: page.file, ...fix.extra, edits, sha256_after: sha256(after) },
        preconditions: [{ target: page.file, version: sha256(text) }],
        projected_impact: { files: 1, bytes_changed: edits.reduce((n, e) => n + e.remove.length + e.insert.length, 0) },
      });
      text = after;
    }
  }
  return items;
}
