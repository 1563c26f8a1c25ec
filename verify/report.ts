/**
 * What the verifier found, per tool: every check in the catalogue with a
 * status and the evidence behind a failure (the argv that showed it, the
 * exit code, the offending bytes).
 */
import type { RunResult } from "./sandbox.ts";

export const CHECKS = {
  "describe.shape": "--describe prints the bare description document, valid against the contract's shape",
  "describe.per-command": "`<command> --describe` describes that command alone, as the tool's document does",
  "describe.contract-version": "contract_version agrees with the tool's spec.yaml",
  "describe.verbs": "every verb is tier 1 or a declared tier-2 verb, never a forbidden synonym, with the right read/write class",
  "describe.json-schema": "every command's flags and result carry valid JSON Schema 2020-12 that agrees with its flag list",
  "describe.schema-ids": "result schema ids are tool.command@N",
  "introspection.help": "--help names the same commands and flags as --describe",
  "introspection.skill": "SKILL.md names the same commands and flags as --describe",
  "flags.universal": "every command accepts every universal flag",
  "flags.params": "--params FILE is accepted by every command and read like the command line",
  "flags.toon": "--toon prints TOON that decodes to the same envelope",
  "output.one-json": "stdout is exactly one JSON object on one line, and nothing else",
  "output.no-ansi": "no ANSI escape sequences on stdout or stderr off a terminal",
  "output.no-stack": "no stack trace on stdout",
  "output.fields-shape": "--fields changes data only, never the envelope's shape",
  "envelope.shape": "every envelope has exactly the contract's fields",
  "envelope.ok-iff": "ok is true exactly when data is an object and error is null",
  "envelope.result-schema": "data validates against the command's output schema, and meta.schema names it",
  "errors.exit-class": "every error code exits with its class, and success exits 0",
  "errors.code-format": "error codes are SCREAMING_SNAKE and declared for the command",
  "errors.unknown-flag": "an unknown flag: exit 2, UNKNOWN_FLAG, the valid flags in allowed",
  "errors.unknown-command": "an unknown command or forbidden synonym: exit 2, UNKNOWN_COMMAND, the commands in allowed",
  "errors.required": "a missing required flag: exit 2, MISSING_FLAG naming it",
  "errors.type": "a wrongly typed value: exit 2, INVALID_VALUE naming the flag",
  "errors.enum": "a value outside an enum: exit 2, INVALID_ENUM, allowed and got, a message listing the values",
  "lists.bounded": "a list without --limit returns at most its declared default and sets pagination",
  "lists.truncation": "a cut list sets truncated and a truncation_hint naming a flag",
  "lists.cursor": "following next_cursor to the end returns every item exactly once",
  "lists.limit-zero": "--limit 0 is a usage error, not 'unbounded'",
  "noninteractive.no-hang": "with stdin closed and --no-input, nothing hangs and nothing prompts",
  "identity.canary": "canary secrets in the environment never appear on stdout, stderr or in written files",
  "identity.home": "a throwaway HOME stays empty",
  "identity.credential-flags": "no flag has a credential-shaped name",
  "identity.env-declared": "every environment variable a command asks for is declared in --describe",
  "fs.read-only": "read commands leave the files they are given untouched",
  "golden.siblings": "golden cases that drive another fleet tool (the gate) find it: --gate PATH, beside the binary, or on PATH",
  golden: "recorded golden cases replay with the same exit code and output",
  fuzz: "randomized argv and params: one valid envelope, an agreeing exit, no stack trace, no hang",
} as const;

export type CheckId = keyof typeof CHECKS;
export type Status = "pass" | "fail" | "skip";

export interface Evidence {
  what: string;
  argv?: string[];
  exit?: number | null;
  stdout?: string;
  stderr?: string;
}

export interface CheckResult {
  id: CheckId;
  title: string;
  status: Status;
  /** Why it was skipped, or how much was exercised. */
  note: string | null;
  evidence: Evidence[];
}

export interface ToolReport {
  binary: string;
  tool: string | null;
  ok: boolean;
  duration_ms: number;
  runs: number;
  checks: CheckResult[];
}

const MAX_EVIDENCE = 5;
const excerpt = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max)}… (${s.length} bytes)` : s);

/** Collects findings for one tool; a check passes if it was exercised and nothing failed it. */
export class Findings {
  readonly #exercised = new Map<CheckId, number>();
  readonly #failures = new Map<CheckId, Evidence[]>();
  readonly #skips = new Map<CheckId, string>();
  readonly #notes = new Map<CheckId, string>();

  exercised(id: CheckId, times = 1): void {
    this.#exercised.set(id, (this.#exercised.get(id) ?? 0) + times);
  }

  fail(id: CheckId, what: string, run?: RunResult): void {
    this.exercised(id);
    const list = this.#failures.get(id) ?? [];
    if (list.length >= MAX_EVIDENCE) return;
    list.push(run ? { what, argv: [...run.run.argv], exit: run.exit, stdout: excerpt(run.stdout, 1500), stderr: excerpt(run.stderr, 600) } : { what });
    this.#failures.set(id, list);
  }

  /** Passes or fails a check on a condition, in one call. */
  expect(id: CheckId, ok: boolean, what: string, run?: RunResult): boolean {
    if (ok) this.exercised(id);
    else this.fail(id, what, run);
    return ok;
  }

  skip(id: CheckId, why: string): void {
    if (!this.#exercised.has(id)) this.#skips.set(id, why);
  }

  note(id: CheckId, text: string): void {
    this.#notes.set(id, text);
  }

  failed(id: CheckId): boolean {
    return this.#failures.has(id);
  }

  results(only?: readonly CheckId[]): CheckResult[] {
    return (Object.keys(CHECKS) as CheckId[])
      .filter((id) => !only || only.includes(id))
      .map((id) => {
        const failures = this.#failures.get(id);
        const status: Status = failures ? "fail" : this.#exercised.has(id) ? "pass" : "skip";
        const note = status === "skip" ? (this.#skips.get(id) ?? "not exercised") : (this.#notes.get(id) ?? `${this.#exercised.get(id)} probe(s)`);
        return { id, title: CHECKS[id], status, note, evidence: failures ?? [] };
      });
  }
}
