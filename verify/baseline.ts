/**
 * Expected failures (as the MCP conformance suite keeps them): a file
 * `{ "<tool>": ["check.id", …] }`. A listed check that fails does not fail the
 * run (its status is `expected-fail`, evidence kept); a listed check that now
 * passes, or is skipped, fails the run, so a fixed defect cannot stay on the
 * list unnoticed; an unknown check id is refused, and a tool the file lists
 * that was not verified is reported.
 */
import { readFileSync } from "node:fs";
import { CHECKS, type CheckResult, type ToolReport } from "./base/report.ts";

export type Baseline = Readonly<Record<string, readonly string[]>>;

export function readBaseline(path: string): Baseline {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`the baseline ${path} cannot be read as JSON: ${(e as Error).message}`);
  }
  const ok =
    doc !== null &&
    typeof doc === "object" &&
    !Array.isArray(doc) &&
    Object.values(doc).every((v) => Array.isArray(v) && v.every((x) => typeof x === "string"));
  if (!ok)
    throw new Error(
      `the baseline ${path} must be a JSON object of tool names to lists of check ids, e.g. {"seo": ["lists.cursor"]}`,
    );
  // A misspelled check id would never match, so its failure would never be let pass, nor its fix noticed.
  const unknown = Object.entries(doc as Baseline).flatMap(([tool, ids]) =>
    ids.filter((id) => !(id in CHECKS)).map((id) => `${tool}: ${id}`),
  );
  if (unknown.length)
    throw new Error(
      `the baseline ${path} names check ids verify does not have: ${unknown.join(", ")}; valid ids: ${Object.keys(CHECKS).join(", ")}`,
    );
  return doc as Baseline;
}

/** Tools the baseline lists that were not among those verified (a misspelled or renamed tool's list is never applied). */
export const unknownTools = (baseline: Baseline, reports: readonly ToolReport[]): string[] =>
  Object.keys(baseline).filter((t) => !reports.some((r) => r.tool === t));

export function applyBaseline(report: ToolReport, baseline: Baseline, path: string): ToolReport {
  const listed = new Set(baseline[report.tool ?? ""] ?? []);
  if (listed.size === 0) return report;
  const checks = report.checks.map((c): CheckResult => {
    if (!listed.has(c.id)) return c;
    if (c.status === "fail") return { ...c, status: "expected-fail", note: `listed in the baseline ${path}` };
    if (c.status === "pass")
      return {
        ...c,
        status: "fail",
        note: null,
        evidence: [
          { what: `stale baseline: ${path} lists ${c.id} as failing, but it passes now; remove it from the list` },
        ],
      };
    if (c.status === "skip")
      return {
        ...c,
        status: "fail",
        evidence: [
          {
            what: `stale baseline: ${path} lists ${c.id} as failing, but it was not run (${c.note}); remove it from the list, or run what it needs`,
          },
        ],
      };
    return c;
  });
  return { ...report, checks, ok: report.tool !== null && checks.every((c) => c.status !== "fail") };
}
