/**
 * The verifier's own output, which obeys the contract it checks: one
 * envelope on stdout off a terminal (the report is `data`, or `error.detail`
 * when a tool does not conform), a readable report on a terminal, and JUnit
 * XML for CI on request.
 */
import type { CheckResult, ToolReport } from "./base/report.ts";

/** The verifier's exit classes (contract §5): a non-conforming tool is bad input, not an internal error. */
export const VERIFY_CODES = {
  USAGE: 2,
  NOT_EXECUTABLE: 2,
  NONCONFORMING: 3,
  INTERNAL: 1,
  CANCELLED: 130,
} as const;
export type VerifyCode = keyof typeof VERIFY_CODES;

export interface Summary {
  tools: number;
  conforming: number;
  failing_checks: number;
  runs: number;
  duration_ms: number;
}

export const summarize = (reports: readonly ToolReport[], durationMs: number): Summary => ({
  tools: reports.length,
  conforming: reports.filter((r) => r.ok).length,
  failing_checks: reports.reduce((n, r) => n + r.checks.filter((c) => c.status === "fail").length, 0),
  runs: reports.reduce((n, r) => n + r.runs, 0),
  duration_ms: durationMs,
});

interface ErrorBody {
  code: VerifyCode;
  message: string;
  hint?: string;
  allowed?: unknown;
  got?: unknown;
  detail?: Record<string, unknown>;
}

export function envelope(data: unknown, error: ErrorBody | null, durationMs: number): string {
  return `${JSON.stringify({
    ok: error === null,
    contract_version: 0,
    tool: "verify",
    command: "audit",
    data: error === null ? data : null,
    error:
      error === null
        ? null
        : {
            code: error.code,
            message: error.message,
            retryable: error.code === "CANCELLED",
            ...(error.hint ? { hint: error.hint } : {}),
            ...(error.allowed !== undefined ? { allowed: error.allowed, got: error.got } : {}),
            ...(error.detail ? { detail: error.detail } : {}),
          },
    meta: {
      schema: error === null ? "verify.audit@1" : null,
      duration_ms: durationMs,
      cost_usd: 0,
      llm_tokens: 0,
      pagination: null,
      truncated: false,
      truncation_hint: null,
      run_dir: null,
      outcome: {
        unit: "count",
        projected: null,
        realized: error === null ? ((data as { summary?: Summary })?.summary?.conforming ?? null) : null,
        cost_usd: 0,
        confidence: null,
      },
      next: [],
    },
  })}\n`;
}

export const failingNames = (reports: readonly ToolReport[]): string =>
  reports
    .filter((r) => !r.ok)
    .map(
      (r) =>
        `${r.tool ?? r.binary} (${
          r.checks
            .filter((c) => c.status === "fail")
            .map((c) => c.id)
            .join(", ") || "no --describe"
        })`,
    )
    .join("; ");

export function textReport(reports: readonly ToolReport[], summary: Summary, colour: boolean): string {
  const paint = (code: string, s: string) => (colour ? `\u001b[${code}m${s}\u001b[0m` : s);
  const out: string[] = [];
  for (const r of reports) {
    const failed = r.checks.filter((c) => c.status === "fail");
    const skipped = r.checks.filter((c) => c.status === "skip");
    const expected = r.checks.filter((c) => c.status === "expected-fail");
    const head = `${r.tool ?? r.binary}  ${r.checks.length - failed.length - skipped.length - expected.length} passed, ${failed.length} failed, ${expected.length ? `${expected.length} failing as the baseline expects, ` : ""}${skipped.length} skipped  (${r.runs} runs, ${(r.duration_ms / 1000).toFixed(1)} s)`;
    out.push(r.ok ? `${paint("32", "✓")} ${head}` : `${paint("31", "✗")} ${head}`);
    for (const c of failed) {
      out.push(`   ${paint("31", "✗")} ${c.id}: ${c.title}`);
      for (const e of c.evidence) {
        out.push(`       ${e.what}`);
        if (e.argv)
          out.push(
            `       $ ${r.binary} ${e.argv.map((a) => (/[\s"'$]/.test(a) ? JSON.stringify(a) : a)).join(" ")}  → exit ${e.exit}`,
          );
        if (e.stdout) out.push(`       stdout: ${e.stdout.trimEnd().split("\n")[0]!.slice(0, 160)}`);
      }
    }
    for (const c of expected)
      out.push(`   ${paint("33", `~ ${c.id}: fails, as the baseline expects (${c.evidence[0]?.what ?? ""})`)}`);
    for (const c of skipped) out.push(`   ${paint("2", `- ${c.id}: skipped (${c.note})`)}`);
  }
  out.push(
    "",
    `${summary.conforming} of ${summary.tools} tool(s) conform; ${summary.runs} runs in ${(summary.duration_ms / 1000).toFixed(1)} s.`,
  );
  return `${out.join("\n")}\n`;
}

const xml = (s: string): string =>
  s
    .replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

function testcase(tool: string, c: CheckResult): string {
  const open = `    <testcase classname="verify.${xml(tool)}" name="${xml(`${c.id}: ${c.title}`)}">`;
  if (c.status === "pass") return `${open}</testcase>`;
  if (c.status === "skip") return `${open}<skipped message="${xml(c.note ?? "")}"/></testcase>`;
  if (c.status === "expected-fail")
    return `${open}<skipped message="${xml(`expected failure (baseline): ${c.evidence[0]?.what ?? ""}`)}"/></testcase>`;
  const body = c.evidence
    .map((e) =>
      [
        e.what,
        e.argv ? `$ ${e.argv.join(" ")} (exit ${e.exit})` : "",
        e.stdout ? `stdout: ${e.stdout}` : "",
        e.stderr ? `stderr: ${e.stderr}` : "",
      ]
        .filter(Boolean)
        .join("\n"),
    )
    .join("\n\n");
  return `${open}<failure message="${xml(c.evidence[0]?.what ?? c.title)}">${xml(body)}</failure></testcase>`;
}

export function junit(reports: readonly ToolReport[]): string {
  const suites = reports.map((r) => {
    const name = r.tool ?? r.binary;
    const failures = r.checks.filter((c) => c.status === "fail").length;
    const skipped = r.checks.filter((c) => c.status === "skip" || c.status === "expected-fail").length;
    return `  <testsuite name="${xml(name)}" tests="${r.checks.length}" failures="${failures}" skipped="${skipped}" time="${(r.duration_ms / 1000).toFixed(3)}">\n${r.checks.map((c) => testcase(name, c)).join("\n")}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="verify">\n${suites.join("\n")}\n</testsuites>\n`;
}
