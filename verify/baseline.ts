/**
 * Expected failures (as the MCP conformance suite keeps them): a file
 * `{ "<tool>": ["check.id", …] }`. A listed check that fails does not fail the
 * run (its status is `expected-fail`, evidence kept); a listed check that now
 * passes fails the run, so a fixed defect cannot stay on the list unnoticed.
 */
import { readFileSync } from "node:fs";
import type { CheckResult, ToolReport } from "./report.ts";

export type Baseline = Readonly<Record<string, readonly string[]>>;

export function readBaseline(path: string): Baseline {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`the baseline ${path} cannot be read as JSON: ${(e as Error).message}`);
  }
  const ok = doc !== null && typeof doc === "object" && !Array.isArray(doc) && Object.values(doc).every((v) => Array.isArray(v) && v.every((x) => typeof x === "string"));
  if (!ok) throw new Error(`the baseline ${path} must be a JSON object of tool names to lists of check ids, e.g. {"seo": ["lists.cursor"]}`);
  return doc as Baseline;
}

export function applyBaseline(report: ToolReport, baseline: Baseline, path: string): ToolReport {
  const listed = new Set(baseline[report.tool ?? ""] ?? []);
  if (listed.size === 0) return report;
  const checks = report.checks.map((c): CheckResult => {
    if (!listed.has(c.id)) return c;
    if (c.status === "fail") return { ...c, status: "expected-fail", note: `listed in the baseline ${path}` };
    if (c.status === "pass")
      return { ...c, status: "fail", note: null, evidence: [{ what: `stale baseline: ${path} lists ${c.id} as failing, but it passes now; remove it from the list` }] };
    return c;
  });
  return { ...report, checks, ok: report.tool !== null && checks.every((c) => c.status !== "fail") };
}
