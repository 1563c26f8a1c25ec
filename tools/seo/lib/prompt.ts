/**
 * The synthesize prompt. Its version is recorded in synthesize.json: change
 * the words, change the version, and old audits can be replayed against it.
 */
import type { AuditData, ScoreData } from "./artifacts.ts";
import { readFindings, sectionsOf } from "./findings.ts";
import type { Finding } from "./schemas.ts";

export const PROMPT_VERSION = "synthesize-v1";

const MAX_FINDINGS = 200;

/** What the prompt shows of an audit: its first findings, worst first, and how many it has in all. */
export interface PromptAudit {
  pages: number;
  findings: Finding[];
  total: number;
}

/** The first MAX_FINDINGS findings (the file is worst first): the rest are counted, never read. */
export function promptAudit(dir: string, audit: AuditData): PromptAudit {
  const findings = readFindings(dir, audit).take(MAX_FINDINGS).toArray();
  return { pages: audit.pages, findings, total: sectionsOf(audit).reduce((n, s) => n + s.count, 0) };
}

export function promptFor(audit: PromptAudit, score: ScoreData): { role: "system" | "user"; content: string }[] {
  const bySeverity = { high: 0, medium: 1, low: 2 } as Record<string, number>;
  const findings = [...audit.findings].sort((a, b) => (bySeverity[a.severity] ?? 3) - (bySeverity[b.severity] ?? 3));
  return [
    {
      role: "system",
      content:
        'You are a senior technical SEO consultant. From an automated audit, write a short prioritised action report for the site owner. Answer with JSON only: {"summary": string, "actions": [{"priority": integer (1 = most urgent), "title": string, "why": string, "rules": [rule ids], "pages": [urls]}]}. Group findings into at most 8 actions; never invent pages or rules that are not in the audit.',
    },
    {
      role: "user",
      content: JSON.stringify({
        score: score.score,
        categories: score.categories.map((c) => ({
          category: c.category,
          score: c.score,
          rules_failed: c.rules_failed,
        })),
        pages: audit.pages,
        findings: findings.map((f) => ({ rule: f.rule, severity: f.severity, url: f.url, message: f.message })),
        omitted_findings: audit.total - findings.length,
      }),
    },
  ];
}
