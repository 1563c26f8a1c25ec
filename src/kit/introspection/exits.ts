/**
 * contract §5's exit classes as a reader is told them: what each means in
 * --describe, and in SKILL.md, briefly, with the move it asks of an agent.
 * Keyed by the exit table, so a class added there has no reading until it
 * has one here.
 */
import type { ExitClass } from "../output/index.ts";

export interface ExitReading {
  /** --describe's `exit_codes`. */
  readonly meaning: string;
  /** SKILL.md's exit table: the class, and what to do about it. */
  readonly brief: string;
  readonly move: string;
}

export const EXIT_READINGS: Readonly<Record<ExitClass, ExitReading>> = {
  ok: { meaning: "success (ok: true)", brief: "success", move: "continue" },
  internal: {
    meaning: "internal or unexpected failure: report it; maybe retry once",
    brief: "internal",
    move: "report; maybe retry once",
  },
  usage: {
    meaning: "usage error, bad flags or arguments: fix the invocation",
    brief: "usage",
    move: "fix the invocation (read `allowed`/`hint`)",
  },
  input: {
    meaning: "input or precondition failure, e.g. a missing artifact: fix the input",
    brief: "input or precondition",
    move: "fix the input (e.g. run the stage the hint names)",
  },
  upstream: {
    meaning: "an external service failed: retry (retryable: true)",
    brief: "upstream",
    move: "retry later (`retryable: true`)",
  },
  policy: {
    meaning: "a policy or guardrail refused: do not retry, it needs approval",
    brief: "policy",
    move: "do not retry: it needs a human or an approval",
  },
  cancelled: { meaning: "interrupted by SIGINT/SIGTERM", brief: "cancelled", move: "the call was interrupted" },
};
