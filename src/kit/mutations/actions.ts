/**
 * contract §8, what a mutating tool declares: how to read a target's live
 * version, and per action how to execute an item, how to tell from external
 * truth whether it has already landed, and how to clear a half-made change
 * of its own after a crash.
 */
import type { SecretOut, WritesDecl } from "../declare/index.ts";
import type { Credential, EnvVar } from "../identity/index.ts";
import type { ErrorCode } from "../output/index.ts";
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
  /** The run's clock (ms since the epoch): what an executor stamps on what it writes. */
  now(): number;
  /** A credential apply declares, refreshed as it nears expiry; `fetch` for a service bound to it (contract §10). */
  credential(name: string): Credential;
  /**
   * A register-once secret the service just issued, returned in the apply's
   * `meta.secrets_out` (declared in `Mutations.secretsOut`). Never return it in
   * the item's result: that is stored in the ledger and the action log.
   */
  secretOut(name: string, value: string): void;
}

export type ReadContext = Omit<ExecContext, "idempotencyKey" | "fence" | "now" | "credential" | "secretOut">;

/**
 * What an action may change: the gate holds every item to it (through the
 * read-back, `target list`), and apply again right before executing, so an
 * item is judged by what its edit does, never by the name of its action.
 */
export interface Effect {
  /** In words, e.g. "only the lang attribute of <html>": what an item of this action may change. */
  readonly may: string;
  /**
   * What the item would change beyond that (empty: nothing), judged from its
   * raw params against its target's live content as the item will find it.
   * Reads only. When the target is not as the item expects, it may answer
   * nothing: the item cannot apply then, and apply judges it again once it can.
   */
  beyond(item: PlanItem, x: ReadContext): Promise<string[]>;
}

export interface ActionSpec {
  /** What an item of this action may change; an item whose edit does more is refused (PLAN_INVALID). */
  readonly effect: Effect;
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
  /**
   * The plan context field that names the folder the plan acts on (a site,
   * a repository): the gate signs its real path, and apply refuses
   * (ROOT_CHANGED) to go on once it resolves elsewhere.
   */
  readonly root?: string;
  /** Register-once secrets an executor may issue (ExecContext.secretOut), by the variable a later job receives each as. */
  readonly secretsOut?: readonly SecretOut[];
  /** apply's longest run, in seconds: a credential that dies sooner with no refresh path fails it before any item (CREDENTIAL_EXPIRED). */
  readonly maxDuration?: number;
}

/** What `--describe` tells the gate of these actions: the root field, and what each action may change. */
export const writesOf = (m: Mutations): WritesDecl => ({
  root: m.root ?? null,
  actions: Object.entries(m.actions).map(([name, a]) => ({ name, may: a.effect.may })),
});
