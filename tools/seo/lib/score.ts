/**
 * The site score: each rule is the share of applicable pages that pass it,
 * weighted by the rule's severity; a category is the weighted mean of its
 * rules; the site is the weighted mean of its categories. No randomness and
 * no model: the same audit always gives the same number.
 */
import { RULES, SEVERITY_RANK, type RuleId } from "./rules-meta.ts";
import { CATEGORIES, type Category } from "./schemas.ts";
import type { ScoreData } from "./artifacts.ts";
import type { RuleCount } from "./findings.ts";

export const CATEGORY_WEIGHTS: Record<Category, number> = {
  indexability: 3,
  content: 3,
  links: 2,
  media: 1,
  international: 1,
  mobile: 1,
};

/**
 * Rules that keep a page out of search whatever else it gets right: a page
 * failing one counts as failing its whole category (the category's score is
 * scaled by the share of pages free of them), not as one rule among many.
 */
const BLOCKING: ReadonlySet<RuleId> = new Set(["canonical-not-http"]);

/** Rules that judge every fetched page; the rest judge pages that could be indexed. */
const ALL_PAGES: ReadonlySet<RuleId> = new Set(["http-status-code", "redirect-chain"]);

/** `rules`: each rule's findings and pages; `pages`: how many were crawled, and how many of them are content pages (2xx HTML). */
export function scoreSite(rules: readonly RuleCount[], pages: { all: number; content: number }): ScoreData {
  const allPages = pages.all;
  const contentPages = pages.content;
  const failing = new Map(rules.map((r) => [r.rule, r]));

  const categories = CATEGORIES.map((category) => {
    let weighted = 0;
    let weights = 0;
    let blocked = 0;
    const rulesFailed: string[] = [];
    for (const [id, meta] of Object.entries(RULES) as [RuleId, (typeof RULES)[RuleId]][]) {
      if (meta.category !== category) continue;
      const applicable = ALL_PAGES.has(id) ? allPages : contentPages;
      if (applicable === 0) continue;
      const failed = Math.min(applicable, failing.get(id)?.pages ?? 0);
      if (failed > 0) rulesFailed.push(id);
      if (BLOCKING.has(id)) blocked = Math.max(blocked, failed / applicable);
      const w = SEVERITY_RANK[meta.severity];
      weighted += w * (1 - failed / applicable);
      weights += w;
    }
    const score = weights === 0 ? 100 : Math.round(((100 * weighted) / weights) * (1 - blocked));
    const findings = rules.reduce((n, r) => n + (RULES[r.rule as RuleId]?.category === category ? r.count : 0), 0);
    return { category, score, weight: CATEGORY_WEIGHTS[category], findings, rules_failed: rulesFailed };
  });
  const total = categories.reduce((n, c) => n + c.weight, 0);
  const score = Math.round(categories.reduce((n, c) => n + c.score * c.weight, 0) / total);
  return { score, categories };
}

export const grade = (score: number): "A" | "B" | "C" | "D" | "F" =>
  score >= 90 ? "A" : score >= 80 ? "B" : score >= 70 ? "C" : score >= 50 ? "D" : "F";
