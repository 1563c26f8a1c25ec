/**
 * What the verifier found, per tool: every check in the catalogue with a
 * status and the evidence behind a failure (the argv that showed it, the
 * exit code, the offending bytes).
 */
import { CHECKS, type CheckId, titleOf } from "./checks-catalogue.ts";
import type { RunResult } from "./sandbox.ts";

export {
  CHECKS,
  type CheckId,
  CLAIMED_ONLY,
  EXTENSIONS,
  type Extension,
  extensionOf,
  titleOf,
} from "./checks-catalogue.ts";

export type Status = "pass" | "fail" | "skip" | "expected-fail";

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
/** Kept before the report chooses: probes finish in any order, and the report must not depend on which came first. */
const MAX_KEPT = 100;
const byWhatThenArgv = (a: Evidence, b: Evidence): number =>
  a.what.localeCompare(b.what) || (a.argv ?? []).join(" ").localeCompare((b.argv ?? []).join(" "));
const excerpt = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max)}… (${s.length} bytes)` : s);

const CUT_SHORT =
  "not judged: its run was cut short at the time limit a tool gets once it has hung twice (noninteractive.no-hang)";

/** Collects findings for one tool; a check passes if it was exercised and nothing failed it. */
export class Findings {
  readonly #exercised = new Map<CheckId, number>();
  readonly #failures = new Map<CheckId, Evidence[]>();
  readonly #skips = new Map<CheckId, string>();
  readonly #notes = new Map<CheckId, string>();
  readonly #waived = new Map<CheckId, string>();

  exercised(id: CheckId, times = 1): void {
    this.#exercised.set(id, (this.#exercised.get(id) ?? 0) + times);
  }

  fail(id: CheckId, what: string, run?: RunResult): void {
    // A run verify cut off at the short limit shows nothing about the tool: the check is left unjudged by it.
    if (run?.cutShort) return this.skip(id, CUT_SHORT);
    this.exercised(id);
    const list = this.#failures.get(id) ?? [];
    if (list.length >= MAX_KEPT) return;
    list.push(
      run
        ? {
            what,
            argv: [...run.run.argv],
            exit: run.exit,
            stdout: excerpt(run.stdout, 1500),
            stderr: excerpt(run.stderr, 600),
          }
        : { what },
    );
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

  /** Not held against the tool at all (an extension it does not claim): skipped, whatever the probes saw. */
  waive(id: CheckId, why: string): void {
    this.#waived.set(id, why);
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
        const waived = this.#waived.get(id);
        if (waived) return { id, title: titleOf(id), status: "skip" as Status, note: waived, evidence: [] };
        const failures = this.#failures.get(id);
        const status: Status = failures ? "fail" : this.#exercised.has(id) ? "pass" : "skip";
        const note =
          status === "skip"
            ? (this.#skips.get(id) ?? "not exercised")
            : (this.#notes.get(id) ?? `${this.#exercised.get(id)} probe(s)`);
        return {
          id,
          title: titleOf(id),
          status,
          note,
          evidence: [...(failures ?? [])].sort(byWhatThenArgv).slice(0, MAX_EVIDENCE),
        };
      });
  }
}
