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
import {
  brokenLinkEdits,
  canonicalEdits,
  canonicalRemoval,
  descriptionEdits,
  setLangEdits,
  viewportEdits,
} from "./fix-edits.ts";
import { descriptionCandidates, MIN_PROSE_WORDS, proseWords } from "./describe-text.ts";
import { locate, type Located } from "./source.ts";
import type { FixAction } from "./fix-actions.ts";

export { describeFromText, sentencesOf } from "./describe-text.ts";

interface Fix {
  action: FixAction;
  reason: string;
  /** Edits against the text as it stands when this fix's turn comes. */
  edits(text: string, at: Located): Edit[] | null;
  extra: Record<string, unknown>;
}

const LANG_TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

interface SitePlan {
  lang: string;
  okPaths: string[];
  /** Every description on the site, lower-cased: those the pages have and those planned so far. */
  descriptions: Set<string>;
  skip(action: FixAction, reason: string): void;
}

/** A description for the page that no other page has; null (and the reason, skipped) when its main text offers none. */
function uniqueDescription(at: Located, site: SitePlan): string | null {
  const offered = descriptionCandidates(at.paragraphs);
  const chosen = offered.find((c) => !site.descriptions.has(c.toLowerCase()));
  if (chosen) {
    site.descriptions.add(chosen.toLowerCase());
    return chosen;
  }
  const prose = proseWords(at.paragraphs);
  site.skip(
    "add-meta-description",
    offered.length > 0
      ? `every description its main text offers (${offered.length}) is already another page's`
      : prose < MIN_PROSE_WORDS
        ? `its main content has too little prose for a description (${prose} words; at least ${MIN_PROSE_WORDS})`
        : "its main content has no whole sentences to describe it with",
  );
  return null;
}

function fixesFor(page: ExtractedPage, findings: readonly Finding[], site: SitePlan): Fix[] {
  const fixes: Fix[] = [];
  const has = (rule: string) => findings.some((f) => f.rule === rule);
  if (has("html-lang"))
    fixes.push({
      action: "set-lang",
      reason: `<html> has no lang attribute; the site's pages use "${site.lang}"`,
      extra: { lang: site.lang },
      edits: (t, at) => setLangEdits(t, at, site.lang),
    });
  if (has("viewport") && !page.viewport)
    fixes.push({
      action: "add-viewport",
      reason: "there is no viewport meta tag, so phones render the desktop layout",
      extra: {},
      edits: viewportEdits,
    });
  if (has("canonical-missing") && /^https?:\/\//.test(page.final_url))
    fixes.push({
      action: "add-canonical",
      reason: `the page declares no canonical URL; it is ${page.final_url}`,
      extra: { href: page.final_url },
      edits: (t, at) => canonicalEdits(t, at, page.final_url),
    });
  const conflict = findings.find((f) => f.rule === "canonical" && Array.isArray(f.detail.canonicals));
  if (conflict)
    fixes.push({
      action: "remove-duplicate-canonical",
      reason: `${(conflict.detail.canonicals as string[]).length} different canonical URLs; keeping the one naming the page itself`,
      extra: {},
      edits: (t, at) => {
        if (at.canonicals.length < 2) return null;
        const keep = at.canonicals.find((c) => c.attrs.href === page.final_url) ?? at.canonicals[0]!;
        return at.canonicals.filter((c) => c !== keep).map((c) => canonicalRemoval(t, c));
      },
    });
  if (findings.some((f) => f.rule === "meta-description") && page.description_count === 0) {
    fixes.push({
      action: "add-meta-description",
      reason:
        "there is no meta description; this one is whole sentences of the page's own main text, and no other page's",
      extra: {},
      edits: (t, at) => {
        const content = uniqueDescription(at, site);
        if (content === null) return null;
        return descriptionEdits(t, at, content);
      },
    });
  }
  const broken = new Map<string, Finding>();
  for (const f of findings)
    if (f.rule === "broken-link" && typeof f.detail.raw === "string") broken.set(f.detail.raw, f);
  for (const [raw, f] of broken) {
    const href = new URL(String(f.detail.href));
    const target = nearest(href.pathname, site.okPaths);
    if (!target || uniqueBest(href.pathname, site.okPaths) !== target) continue;
    const replacement = raw.startsWith("/")
      ? target
      : /^https?:/i.test(raw)
        ? new URL(target, href).toString()
        : posix.relative(posix.dirname(new URL(page.final_url).pathname), target) || ".";
    fixes.push({
      action: "fix-broken-link",
      reason: `links to ${raw}, which answers ${f.detail.status || "nothing"}; the only close match on the site is ${target}`,
      extra: { from: raw, to: replacement },
      edits: (t, at) => brokenLinkEdits(t, at, raw, replacement),
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

/** A fix the plan leaves out, and why. */
export interface Skipped {
  file: string;
  action: FixAction | null;
  reason: string;
}

export function planFixes(
  root: string,
  pages: readonly ExtractedPage[],
  findings: readonly Finding[],
  langFlag: string | undefined,
  only: readonly string[] | undefined,
): { items: ItemInput[]; skipped: Skipped[] } {
  const langs = pages.map((p) => p.lang).filter((l): l is string => !!l && LANG_TAG.test(l));
  const common = [...new Set(langs)].sort(
    (a, b) => langs.filter((x) => x === b).length - langs.filter((x) => x === a).length,
  )[0];
  const items: ItemInput[] = [];
  const skipped: Skipped[] = [];
  let current = "";
  const site: SitePlan = {
    lang: langFlag ?? common ?? "en",
    okPaths: pages
      .filter((p) => p.status === 200 && p.file?.endsWith(".html"))
      .map((p) => new URL(p.final_url).pathname),
    descriptions: new Set(pages.flatMap((p) => (p.meta_description ? [p.meta_description.trim().toLowerCase()] : []))),
    skip: (action, reason) => skipped.push({ file: current, action, reason }),
  };
  const planned = new Set<string>(); // one file reached by two URLs is planned once
  const byPage = Map.groupBy(findings, (f) => f.url);
  for (const page of [...pages].sort((a, b) => (a.file ?? "").localeCompare(b.file ?? ""))) {
    if (!page.file || page.status !== 200 || planned.has(page.file)) continue;
    planned.add(page.file);
    current = page.file;
    const mine = byPage.get(page.url) ?? [];
    const fixes = fixesFor(page, mine, site).filter((f) => !only || only.includes(f.action));
    if (fixes.length === 0) continue;
    let bytes: Buffer;
    try {
      bytes = readFileSync(resolveWithin(root, page.file, "the site folder"));
    } catch (e) {
      throw new KitError("INVALID_INPUT", `${page.file} cannot be planned: ${(e as Error).message}`, {
        hint: "crawl the folder again, then plan",
      });
    }
    let text = bytes.toString("utf8");
    // Edits are made on the text and written back as UTF-8: a page in another encoding is left as it is, and said so.
    if (!Buffer.from(text, "utf8").equals(bytes) || (page.encoding && page.encoding.name !== "utf-8")) {
      skipped.push({
        file: page.file,
        action: null,
        reason: `it is ${page.encoding?.name ?? "not valid UTF-8"}, not UTF-8; seo edits UTF-8 files only`,
      });
      continue;
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
  return { items, skipped };
}
