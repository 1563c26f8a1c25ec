/**
 * The fixes a page's findings call for, each a minimal edit that leaves the
 * rest of the file byte-for-byte unchanged (fix-edits.ts). What they need of
 * the rest of the site (its language, its descriptions, where a broken link
 * should point) comes from the plan's pass over the site (plan-run.ts).
 */
import { posix } from "node:path";
import type { Finding } from "./schemas.ts";
import type { ExtractedPage } from "./page-schema.ts";
import type { Edit } from "./edits.ts";
import {
  brokenLinkEdits,
  canonicalEdits,
  canonicalRemoval,
  descriptionEdits,
  setLangEdits,
  viewportEdits,
} from "./fix-edits.ts";
import { descriptionCandidates, MIN_PROSE_WORDS, proseWords } from "./describe-text.ts";
import type { Located } from "./source.ts";
import type { FixAction } from "./fix-actions.ts";

export { describeFromText, sentencesOf } from "./describe-text.ts";

export interface Fix {
  action: FixAction;
  reason: string;
  /** Edits against the text as it stands when this fix's turn comes. */
  edits(text: string, at: Located): Edit[] | null;
  extra: Record<string, unknown>;
}

/** What a page's fixes need of the rest of the site. */
export interface SitePlan {
  lang: string;
  /** The one page path a broken link to `path` should point at, or null. */
  targetFor(path: string): string | null;
  /** Whether a description (compared lower-cased) is already on the site or planned for another page. */
  taken(description: string): boolean;
  /** Records a description as planned. */
  claim(description: string): void;
  skip(action: FixAction, reason: string): void;
}

/** The rules whose findings call for a fix. */
export const FIX_RULES = ["html-lang", "viewport", "canonical-missing", "canonical", "meta-description", "broken-link"];

export const fixesFor = (page: ExtractedPage, findings: readonly Finding[], site: SitePlan): Fix[] => [
  ...headFixes(page, findings, site),
  ...descriptionFixes(page, findings, site),
  ...brokenLinkFixes(page, findings, site),
];

/** The lang, the viewport and the canonical link. */
function headFixes(page: ExtractedPage, findings: readonly Finding[], site: SitePlan): Fix[] {
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
  return fixes;
}

function descriptionFixes(page: ExtractedPage, findings: readonly Finding[], site: SitePlan): Fix[] {
  if (!findings.some((f) => f.rule === "meta-description") || page.description_count !== 0) return [];
  return [
    {
      action: "add-meta-description",
      reason:
        "there is no meta description; this one is whole sentences of the page's own main text, and no other page's",
      extra: {},
      edits: (t, at) => {
        const content = uniqueDescription(at, site);
        return content === null ? null : descriptionEdits(t, at, content);
      },
    },
  ];
}

/** A description for the page that no other page has; null (and the reason, skipped) when its main text offers none. */
function uniqueDescription(at: Located, site: SitePlan): string | null {
  const offered = descriptionCandidates(at.paragraphs);
  const chosen = offered.find((c) => !site.taken(c));
  if (chosen) {
    site.claim(chosen);
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

/** The folder a relative link on the page at `path` resolves in: "/guides/" for "/guides/" and "/guides/a.html" (posix.dirname would say "/" for the first). */
const folderOf = (path: string): string => path.slice(0, path.lastIndexOf("/") + 1);

/** Each broken link's href (as written) to the one page path close to it, where there is one. */
function brokenLinkFixes(page: ExtractedPage, findings: readonly Finding[], site: SitePlan): Fix[] {
  const broken = new Map<string, Finding>();
  for (const f of findings)
    if (f.rule === "broken-link" && typeof f.detail.raw === "string") broken.set(f.detail.raw, f);
  const fixes: Fix[] = [];
  for (const [raw, f] of broken) {
    const href = new URL(String(f.detail.href));
    const target = site.targetFor(href.pathname);
    if (!target) continue;
    // A link written as a URL is repointed by its path: a URL's host is never the plan's to vouch for (link-check.ts).
    const replacement =
      raw.startsWith("/") || /^https?:/i.test(raw)
        ? target
        : posix.relative(folderOf(new URL(page.final_url).pathname), target) || ".";
    fixes.push({
      action: "fix-broken-link",
      reason: `links to ${raw}, which answers ${f.detail.status || "nothing"}; the only close match on the site is ${target}`,
      extra: { from: raw, to: replacement },
      edits: (t, at) => brokenLinkEdits(t, at, raw, replacement),
    });
  }
  return fixes;
}
