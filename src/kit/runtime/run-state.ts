/**
 * What a command's run adds to its envelope's `meta`, filled as it runs and
 * read when it answers: held by the invocation from its first byte, so an
 * answer that fails before any run (a usage error) needs nothing else.
 */
import type { Page } from "../lists/index.ts";
import type { Outcome, OutcomeUnit } from "../output/index.ts";

/** The parts of `meta` a command's run contributes. */
export class RunState {
  costUsd = 0;
  llmTokens = 0;
  page: Page<unknown> | null = null;
  next: string[] = [];
  /** Next steps the run named to come after the declared ones. */
  nextLast: string[] = [];
  /** Set when the answer is cut short other than by pagination (ctx.truncated). */
  truncationHint: string | null = null;
  /** Reported with CANCELLED if a signal stops the command. */
  checkpoint: Record<string, unknown> | null = null;
  /** What a cancellation waits for before it answers, and for how long at most (null: as long as it takes). */
  windDown: Promise<unknown> | null = null;
  windDownMs: number | null = null;
  /** Register-once secrets issued during the run, by the name they are declared under. */
  secretsOut: Record<string, string> | null = null;
  outcome: Omit<Outcome, "cost_usd">;

  constructor(unit: OutcomeUnit) {
    this.outcome = { unit, projected: null, realized: null, confidence: null };
  }
}
