/**
 * What a plan answers for: the findings in its scope (the rules its kinds of
 * fix address, narrowed to named findings or one page), and for each of them
 * either an item or a reason it has none. Nothing in scope is left out
 * silently.
 */
import { FIX_ACTIONS, type FixAction } from "./fix-actions.ts";
import type { ExtractedPage } from "./page-schema.ts";
import type { Finding } from "./schemas.ts";

/** A fix the plan leaves out, and why; `finding` names the finding it leaves unfixed, where there is one. */
export interface Skipped {
  file: string;
  action: FixAction | null;
  reason: string;
  finding?: string;
}

/** The rule whose findings each kind of fix answers. */
export const RULE_OF: Record<FixAction, string> = {
  "set-lang": "html-lang",
  "add-viewport": "viewport",
  "add-canonical": "canonical-missing",
  "remove-duplicate-canonical": "canonical",
  "add-meta-description": "meta-description",
  "fix-broken-link": "broken-link",
};

export interface PlanScope {
  only: readonly FixAction[] | undefined;
  /** Only these findings (ids), when given. */
  findings: ReadonlySet<string> | null;
  /** Only the page at this URL, when given. */
  page: string | null;
}

export const onPage = (scope: PlanScope, page: ExtractedPage): boolean =>
  scope.page === null || page.url === scope.page || page.final_url === scope.page;

/** A page's findings the plan answers for. */
export function inScope(scope: PlanScope, findings: readonly Finding[]): Finding[] {
  const rules = new Set((scope.only ?? FIX_ACTIONS).map((a) => RULE_OF[a]));
  return findings.filter((f) => (scope.findings ? scope.findings.has(f.id) : rules.has(f.rule)));
}

const actionFor = (rule: string): FixAction | null =>
  (Object.keys(RULE_OF) as FixAction[]).find((a) => RULE_OF[a] === rule) ?? null;

/** Why a finding the page's plan did not answer has no fix. */
function reasonFor(f: Finding, page: ExtractedPage): string {
  if (!page.file) return `${page.url} is not a file of the folder, so there is nothing to edit`;
  if (page.status !== 200) return `the page answers ${page.status}; seo edits pages that answer 200`;
  switch (f.rule) {
    case "broken-link":
      return `no page on the site is a clear match for ${String(f.detail.raw ?? f.detail.href)}: a person must choose where the link should point, or remove it`;
    case "canonical":
      return `seo fixes only conflicting canonicals; this one needs a person: ${f.message}`;
    case "canonical-missing":
      return `the page's URL (${page.final_url}) is not http(s), so there is no canonical to add`;
    case "viewport":
      return "the page has a viewport meta without width or initial-scale; seo adds one only where there is none";
    case "meta-description":
      return "the page's meta description is there but empty; seo adds one only where there is none";
    default:
      return actionFor(f.rule) === null
        ? `seo plans no fix for ${f.rule} findings`
        : `seo found no edit it could make for it in ${page.file}`;
  }
}

/**
 * The page's findings in scope that neither an item nor a skip planned for
 * the page answers (`itemsFrom`/`skippedFrom` mark where the page's begin),
 * each as a skip of its own.
 */
export function unanswered(
  page: ExtractedPage,
  scoped: readonly Finding[],
  answered: { items: readonly { action: string; params: Record<string, unknown> }[]; skipped: readonly Skipped[] },
): Skipped[] {
  const answers = (f: Finding) =>
    answered.items.some(
      (i) => RULE_OF[i.action as FixAction] === f.rule && (f.rule !== "broken-link" || i.params.from === f.detail.raw),
    ) ||
    answered.skipped.some(
      (s) => s.finding === f.id || (s.action === null ? Boolean(page.file) : RULE_OF[s.action] === f.rule),
    );
  return scoped
    .filter((f) => !answers(f))
    .map((f) => ({
      file: page.file ?? page.url,
      action: actionFor(f.rule),
      reason: reasonFor(f, page),
      finding: f.id,
    }));
}

/** At most this many skips in the answer; plan.json's context holds them all. */
export const SKIPPED_SHOWN = 50;

/** The skips, counted by kind of fix ("other" for none), and the first SKIPPED_SHOWN of them. */
export function boundSkipped(skipped: readonly Skipped[]): {
  skipped: Skipped[];
  skipped_count: { total: number; by_action: Record<string, number> };
} {
  const byAction: Record<string, number> = {};
  for (const s of skipped) byAction[s.action ?? "other"] = (byAction[s.action ?? "other"] ?? 0) + 1;
  return { skipped: skipped.slice(0, SKIPPED_SHOWN), skipped_count: { total: skipped.length, by_action: byAction } };
}
