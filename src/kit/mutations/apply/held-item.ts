/**
 * contract §8, one claimed item's steps: reconcile a takeover, check the
 * precondition, execute, settle + log — fenced by the claim's generation.
 */
import { fromSystemError, KitError, REDISPATCH_CODES, type ErrorCode } from "../../output/index.ts";
import type { ActionSpec, ExecContext, Mutations } from "../actions.ts";
import { assertItemWithin } from "../effects.ts";
import type { Failpoints } from "../failpoints.ts";
import type { Claim, ClaimRequest, Fence, Ledger } from "../ledger/ledger.ts";
import { isLedgerFailure } from "../ledger/open.ts";
import type { Plan, PlanItem } from "../plan.ts";
import type { Lease } from "./lease.ts";
import type { RootGuard } from "./root.ts";
import { lostLease, reportOf, type ItemReport } from "./report.ts";

export interface ApplyRun {
  readonly plan: Plan;
  readonly mutations: Mutations;
  readonly tool: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal: AbortSignal;
  readonly now: () => number;
  readonly wait: boolean;
  /** null: a dry run (nothing is claimed or executed). */
  readonly ledger: Ledger | null;
  /** After each item: how many of the plan's are done, and its report. */
  readonly onItem?: (done: number, total: number, report: ItemReport) => void;
  /** The plan's approved root, resolved again before each item and each irreversible step; null when the tool declares none. */
  readonly root?: RootGuard | null;
  /** contract §10: the command's credentials and secrets out; what the ledger stores passes `redact` (a secret returned by mistake is masked). */
  readonly identity?: Pick<ExecContext, "credential" | "secretOut"> & { redact(text: string): string };
}

/** What a held item needs of the run that claimed it (the Applier). */
export interface ItemOwner {
  readonly run: ApplyRun;
  readonly faults: Failpoints;
  readonly actor: string;
  executions: number;
  fences: number;
  settlements: number;
  ahead: { key: string; claim: Claim; at: number } | null;
  action(it: PlanItem): ActionSpec;
  context(it: PlanItem, signal: AbortSignal, fence: () => Promise<void>): ExecContext;
  stale(it: PlanItem): Promise<string | null>;
  request(it: PlanItem, now: number): ClaimRequest;
}

/** An item this run has claimed, fenced by the claim's generation. */
export class HeldItem {
  private readonly action: ActionSpec;
  private readonly x: ExecContext;
  private readonly started: number;

  constructor(
    private readonly by: ItemOwner,
    private readonly it: PlanItem,
    private readonly next: PlanItem | null,
    private readonly ledger: Ledger,
    private readonly fence: Fence,
    private readonly lease: Lease,
  ) {
    this.action = by.action(it);
    this.x = by.context(it, lease.signal, async () => {
      await by.faults.atCommit();
      await lease.fence();
      by.run.root?.check();
      by.faults.crashAt("kill-at-commit", ++by.fences);
    });
    this.started = by.run.now();
  }

  async run(takenFrom: string | null, progress: { executed: boolean }): Promise<ItemReport> {
    let executing = false;
    let result: Record<string, unknown>;
    try {
      this.by.run.root?.check(); // the claim may have waited: the root is checked again before anything reads through it
      const decided = (takenFrom === null ? null : await this.reconcile(takenFrom)) ?? (await this.precondition());
      if (decided) return decided;
      await assertItemWithin(this.it, this.by.run.mutations, this.by.run);
      await this.by.faults.delay(this.by.executions + 1, this.by.run.signal);
      // The last point a signal stops the item at: past it, the execution is let finish.
      this.by.run.signal.throwIfAborted();
      executing = true;
      result = await this.action.execute(this.it, this.x);
    } catch (e) {
      if (isLedgerFailure(e)) throw e;
      if (this.by.run.signal.aborted) return this.cancelled(executing, takenFrom !== null);
      // A stale owner finds the change made by the apply that took the item over: say so, not "precondition failed".
      if (e instanceof KitError && e.code === "PRECONDITION_FAILED" && !(await this.lease.holds()))
        return lostLease(this.it, false);
      return this.failed(e, executing);
    }
    progress.executed = true;
    this.by.faults.crashAt("after-execute", ++this.by.executions);
    return (await this.settle("applied", true, "applied", result))
      ? reportOf(this.it, "applied", true, result)
      : lostLease(this.it, true);
  }

  /** reconcile: a takeover means a previous owner may have executed and died before confirming; read external truth first. */
  private async reconcile(takenFrom: string): Promise<ItemReport | null> {
    await this.action.recover?.(this.it, this.x);
    return (await this.action.landed(this.it, this.x)) ? this.reconciled({ reconciled_from: takenFrom }) : null;
  }

  /** precondition: the targets are as planned, or the change is already in place, or the item fails and is forgotten. */
  private async precondition(): Promise<ItemReport | null> {
    const stale = await this.by.stale(this.it);
    if (stale === null) return null;
    if (await this.action.landed(this.it, this.x))
      return this.reconciled({ reconciled: "the change was already in place" });
    await this.ledger.release(this.fence, "forget");
    return reportOf(this.it, "failed", false, null, { code: "PRECONDITION_FAILED", message: stale });
  }

  private async reconciled(why: Record<string, unknown>): Promise<ItemReport> {
    return (await this.settle("applied", false, "reconciled", why))
      ? reportOf(this.it, "reconciled", false)
      : lostLease(this.it, false);
  }

  /** settle: the outcome and its action-log row in one transaction, refused to an owner that lost the item; an applied item's settlement also claims the next item. */
  private async settle(
    outcome: "applied" | "failed",
    executed: boolean,
    logOutcome: string,
    raw: unknown,
  ): Promise<boolean> {
    const { it, by, next } = this;
    const now = by.run.now();
    const result = by.run.identity && raw != null ? JSON.parse(by.run.identity.redact(JSON.stringify(raw))) : raw;
    const log = {
      at: now,
      actor: by.actor,
      tool: by.run.tool,
      action: it.action,
      plan: by.run.plan.checksum,
      item: it.id,
      key: it.idempotency_key,
      outcome: logOutcome,
      executed,
      startedAt: this.started,
      finishedAt: now,
      detail: result,
    };
    const s = { outcome, result, now, log };
    const ahead = outcome === "applied" && next?.idempotency_key !== it.idempotency_key ? next : null;
    const done = ahead
      ? await this.ledger.settleAndClaim(this.fence, s, by.request(ahead, now))
      : { settled: await this.ledger.settle(this.fence, s), next: null };
    if (ahead && done.next) by.ahead = { key: ahead.idempotency_key, claim: done.next, at: now };
    by.faults.crashAt("after-settle", ++by.settlements);
    return done.settled;
  }

  /**
   * Stopped by a signal: released, never settled. Before its execution (and
   * with no earlier owner's attempt to reconcile) the row goes; else the next
   * apply takes the item over and reconciles it against external truth.
   */
  private async cancelled(executing: boolean, takeover: boolean): Promise<ItemReport> {
    const why = `interrupted by ${String(this.by.run.signal.reason)}`;
    await this.ledger.release(this.fence, executing || takeover ? "reconcile" : "forget");
    return executing
      ? reportOf(this.it, "failed", false, null, {
          code: "CANCELLED",
          message: `${why} while executing (not stored: the next apply reconciles it)`,
        })
      : reportOf(this.it, "skipped", false, null, { code: "CANCELLED", message: `not attempted: ${why}` });
  }

  /** Only a final outcome is stored; a retryable failure releases the item so the next run reconciles it. */
  private async failed(e: unknown, executing: boolean): Promise<ItemReport> {
    const { it } = this;
    if (e instanceof KitError && e.code === "IN_PROGRESS") {
      if (!(await this.lease.holds())) return lostLease(it, false);
      // The executor found its target busy past its bound: released, so the next run takes the item over and reconciles it.
      await this.ledger.release(this.fence, "reconcile");
      return reportOf(it, "in-progress", false, null, { code: e.code, message: e.message });
    }
    // A dead credential decides nothing about the item: a re-dispatch with fresh credentials runs it (after reconciling).
    if (e instanceof KitError && REDISPATCH_CODES.has(e.code))
      return this.ledger.release(this.fence, executing ? "reconcile" : "forget").then(() =>
        reportOf(it, "failed", false, null, {
          code: e.code,
          message: `${e.message} (not stored: a re-dispatch with fresh credentials tries the item again)`,
        }),
      );
    // Refused before any side effect (by the executor, the checks before it, or the fence's root check): nothing to store or reconcile.
    if (
      e instanceof KitError &&
      (e.code === "PRECONDITION_FAILED" || e.code === "ROOT_CHANGED" || (!executing && !e.retryable))
    ) {
      await this.ledger.release(this.fence, "forget");
      return reportOf(it, "failed", false, null, { code: e.code, message: e.message });
    }
    if (e instanceof KitError && !e.retryable) {
      const error = { code: e.code, message: e.message };
      return (await this.settle("failed", true, "failed", { error }))
        ? reportOf(it, "failed", true, null, error)
        : lostLease(it, false);
    }
    // Anything else (a system error, a passing failure) is not a decision about the item: never stored.
    const known = e instanceof KitError ? e : fromSystemError(e);
    const error = known
      ? { code: known.code, message: known.message }
      : { code: "UPSTREAM_ERROR" as ErrorCode, message: (e as Error).message };
    await this.ledger.release(this.fence, "reconcile");
    return reportOf(it, "failed", false, null, {
      code: error.code,
      message: `${error.message} (not stored: a re-run tries the item again)`,
    });
  }
}
