/**
 * contract §8, what a mutating tool declares: how to read a target's live
 * version, and per action how to execute an item, how to tell from external
 * truth whether it has already landed, and how to clear a half-made change
 * of its own after a crash.
 */
import type { EnvVar } from "../declare/define.ts";
import type { ErrorCode } from "../output/errors.ts";
import type { Plan, PlanItem } from "./plan.ts";

export interface TargetState {
  /** A content hash: what preconditions compare. */
  readonly version: string;
  readonly bytes: number;
}

export interface ExecContext {
  readonly plan: Plan;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted when the run is cancelled or the item's lease is lost. */
  readonly signal: AbortSignal;
  /** Passed to the external system where it accepts one. */
  readonly idempotencyKey: string;
  /**
   * Proves this run still holds the item (its lease and generation) and extends
   * the lease; throws IN_PROGRESS otherwise. An executor calls it right before its
   * irreversible step, so an owner whose lease was taken over never commits.
   */
  fence(): Promise<void>;
}

export type ReadContext = Omit<ExecContext, "idempotencyKey" | "fence">;

export interface ActionSpec {
  /**
   * Performs the item's side effect; returns what to record as its result.
   * Throws PRECONDITION_FAILED only before doing anything (nothing is stored; a
   * later run may apply the item). A retryable error (or any unexpected one)
   * releases the item for reconciliation; a non-retryable KitError is stored as
   * the item's final outcome.
   */
  execute(item: PlanItem, x: ExecContext): Promise<Record<string, unknown>>;
  /** Reads external truth: is this item's effect already in place? Used to reconcile after a crash. */
  landed(item: PlanItem, x: ExecContext): Promise<boolean>;
  /** Clears what a crashed execution of this item may have left half-made (a temp file, say), before reconciling. */
  recover?(item: PlanItem, x: ExecContext): Promise<void>;
}

export interface Mutations {
  /** A target's live state, or null when it does not exist. */
  readTarget(target: string, x: ReadContext): Promise<TargetState | null>;
  readonly actions: Readonly<Record<string, ActionSpec>>;
  /** Environment the executors read (e.g. a repository path), declared on apply and target list. */
  readonly env?: readonly EnvVar[];
  /** Codes the executors raise. */
  readonly errors?: readonly ErrorCode[];
}
