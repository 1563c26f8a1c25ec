/**
 * The synthesize prompt. Its version is recorded in synthesize.json: change
 * the words, change the version, and old audits can be replayed against it.
 */
import type { AuditData, ScoreData } from "./artifacts.ts";

export const PROMPT_VERSION = "synthesize-v1";

const MAX_FINDINGS = 200;

export function promptFor(audit: AuditData, score: ScoreData): { role: "system" | "user"; content: string }[] {
  const bySeverity = { high: 0, medium: 1, low: 2 } as Record<string, number>;
  const findings = [...audit.findings]
    .sort((a, b) => (bySeverity[a.severity] ?? 3) - (bySeverity[b.severity] ?? 3))
    .slice(0, MAX_FINDINGS);
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
        omitted_findings: audit.findings.length - findings.length,
      }),
    },
  ];
}
