/**
 * contract §2: the one output envelope, the same shape for success and
 * failure. `ok` ⟺ `data` is an object and `error` is null; `meta` is always
 * present, with every field, so a consumer never tests for a key.
 */
import type { ErrorObject } from "./errors.ts";

/** contract §11: the fleet's outcome units. */
export type OutcomeUnit = "usd" | "rank" | "pct" | "count" | "ms";

/** Costs to 1e-8 USD: a cheap model call costs well under a thousandth of a cent. */
export const roundUsd = (usd: number): number => Math.round(usd * 1e8) / 1e8;

/** contract §11: the comparable spine every result carries. */
export interface Outcome {
  unit: OutcomeUnit;
  projected: number | null;
  realized: number | null;
  cost_usd: number;
  confidence: number | null;
}

/** contract §6: where a bounded list stands; `next_cursor` is null on its last page. */
export interface Pagination {
  limit: number;
  returned: number;
  total: number;
  next_cursor: string | null;
}

export interface Meta {
  schema: string | null;
  duration_ms: number;
  cost_usd: number;
  llm_tokens: number;
  pagination: Pagination | null;
  truncated: boolean;
  truncation_hint: string | null;
  run_dir: string | null;
  outcome: Outcome;
  /** The commands a caller would run next, e.g. `seo audit --run-dir …` after `seo extract`; empty after a failure (its hint says what to do). */
  next: string[];
  /**
   * contract §10, register-once secrets: present only on a command that
   * declares them and only when one was issued; intact on stdout, masked
   * everywhere else, delivered by the harness to the platform's secret sink only.
   */
  secrets_out?: Record<string, string>;
}

export interface Envelope {
  ok: boolean;
  contract_version: number;
  tool: string;
  command: string;
  data: unknown;
  error: ErrorObject | null;
  meta: Meta;
}

export interface EnvelopeParts {
  tool: string;
  contractVersion: number;
  command: string;
  meta: Meta;
}

export const success = (p: EnvelopeParts, data: unknown): Envelope => ({
  ok: true,
  contract_version: p.contractVersion,
  tool: p.tool,
  command: p.command,
  data,
  error: null,
  meta: p.meta,
});

export const failure = (p: EnvelopeParts, error: ErrorObject): Envelope => ({
  ok: false,
  contract_version: p.contractVersion,
  tool: p.tool,
  command: p.command,
  data: null,
  error,
  meta: p.meta,
});
