/**
 * verify's check that a register-once secret leaves a tool only where its
 * --describe declares it (contract §10), over envelopes as a probe sees them.
 * The kit's own emission of them is tested in test/kit/credentials.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { checkSecretsOut } from "../../verify/base/secrets-out.ts";
import type { Subject } from "../../verify/base/subject.ts";
import { Findings } from "../../verify/base/report.ts";
import type { RunResult } from "../../verify/base/sandbox.ts";

const doc = {
  commands: [{ name: "apply", secrets_out: [{ name: "CLIENT_SECRET", description: "issued once" }] }, { name: "list" }],
};
const meta = (extra: Record<string, unknown>) => ({
  schema: null,
  duration_ms: 0,
  cost_usd: 0,
  llm_tokens: 0,
  pagination: null,
  truncated: false,
  truncation_hint: null,
  run_dir: null,
  outcome: { unit: "count", projected: null, realized: null, cost_usd: 0, confidence: null },
  ...extra,
});
const runOf = { run: { label: "probe", argv: ["apply"] }, exit: 0, stdout: "", stderr: "" } as unknown as RunResult;

function judge(command: string, extra: Record<string, unknown>): { status: string; evidence: string[] } {
  const s = { findings: new Findings(), doc, strict: true, exits: new Map() } as unknown as Subject;
  const env = { ok: true, contract_version: 0, tool: "t", command, data: {}, error: null, meta: meta(extra) } as never;
  checkSecretsOut(s, runOf, env, null);
  const r = s.findings.results(["identity.secrets-out"])[0]!;
  return { status: r.status, evidence: r.evidence.map((e) => e.what) };
}

describe("identity.secrets-out", () => {
  test("no secrets_out, or a declared one: passes", () => {
    expect([
      judge("list", {}).status,
      judge("apply", { secrets_out: { CLIENT_SECRET: "s3cr3t-value" } }).status,
    ]).toEqual(["pass", "pass"]);
  });

  test("a secret out on a command that declares none, or under another name, or not a string: fails, naming it", () => {
    expect(judge("list", { secrets_out: { CLIENT_SECRET: "x" } })).toEqual({
      status: "fail",
      evidence: [
        "'list' returns CLIENT_SECRET in meta.secrets_out, which its --describe does not declare in secrets_out",
      ],
    });
    expect(judge("apply", { secrets_out: { OTHER: "x" } }).evidence).toEqual([
      "'apply' returns OTHER in meta.secrets_out, which its --describe does not declare in secrets_out (it declares CLIENT_SECRET)",
    ]);
    expect(judge("apply", { secrets_out: { CLIENT_SECRET: 42 } }).evidence).toEqual([
      "'apply': meta.secrets_out.CLIENT_SECRET is not a string",
    ]);
    expect(judge("apply", { secrets_out: ["x"] }).status).toBe("fail");
  });
});
