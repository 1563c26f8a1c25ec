/** Filtering and counting findings: shared by `audit` and `finding list`. */
import { SEVERITY_RANK } from "../rules-meta.ts";
import type { Finding, Severity } from "../schemas.ts";

export interface FindingFilter {
  severity: Severity;
  rule?: string;
  url?: string;
}

/** `--severity` is a floor: medium shows medium and high. */
export const filterFindings = (all: readonly Finding[], f: FindingFilter): Finding[] =>
  all.filter(
    (x) =>
      SEVERITY_RANK[x.severity] >= SEVERITY_RANK[f.severity] &&
      (!f.rule || x.rule === f.rule) &&
      (!f.url || x.url === f.url),
  );

export function summarize(all: readonly Finding[], pages: number) {
  const by_severity = { high: 0, medium: 0, low: 0 };
  const by_rule: Record<string, number> = {};
  for (const f of all) {
    by_severity[f.severity]++;
    by_rule[f.rule] = (by_rule[f.rule] ?? 0) + 1;
  }
  return {
    pages,
    findings: all.length,
    pages_with_findings: new Set(all.map((f) => f.url)).size,
    by_severity,
    by_rule,
  };
}
