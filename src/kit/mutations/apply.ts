/**
 * contract §8 `apply`: every item of an approved plan through the ledger,
 *
 *   claim → (takeover: recover, reconcile) → preconditions → execute → settle + log
 *
 * fenced by the claim's generation, with a heartbeat renewing the lease while
 * an item executes. Items touching one target run in plan order, each
 * expecting the version the previous one leaves, so the plan's own confirmed
 * items never make it stale, while anybody else's change to a target fails
 * that item's precondition.
 */
import { hostname, userInfo } from "node:os";
import type { Fence, Ledger } from "./ledger/ledger.ts";
import { isLedgerFailure } from "./ledger/open.ts";
import type { ActionSpec, ExecContext, Mutations } from "./actions.ts";
import { fromSystemError, KitError, type ErrorCode } from "../output/errors.ts";
import { crashNow, failpointsOf, type Failpoints } from "./failpoints.ts";
import { sha256 } from "../pipeline/hash.ts";
import { canonicalJson, type Plan, type PlanItem } from "./plan.ts";

export const ITEM_OUTCOMES = ["applied", "already-applied", "reconciled", "would-apply", "failed", "skipped", "in-progress", "unconfirmed"] as const;
export type ItemOutcome = (typeof ITEM_OUTCOMES)[number];
/** Outcomes that leave the item's change in place. */
export const IN_PLACE: ReadonlySet<ItemOutcome> = new Set(["applied", "already-applied", "reconciled"]);

export interface ItemReport {
  id: string;
  action: string;
  executed: boolean;
  outcome: ItemOutcome;
  result: unknown;
  error: { code: string; message: string } | null;
}

export const LEASE_ENV = "AGENT_LEDGER_LEASE_MS";
const DEFAULT_LEASE_MS = 60_000;
const MIN_LEASE_MS = 300;
const POLL_MS = 50;

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
}

/** Every item's report, in plan order; `stoppedBy` is set when the ledger failed and the rest were not attempted. */
export async function applyItems(run: ApplyRun): Promise<{ reports: ItemReport[]; stoppedBy: KitError | null }> {
  const step = new ItemStep(run);
  const blocked = new Map<string, string>(); // target → the item whose failure blocks later items on it
  const dryChecked = new Set<string>();
  const reports: ItemReport[] = [];
  for (const [index, it] of run.plan.items.entries()) {
    run.signal.throwIfAborted();
    const blocker = it.target_resource_ids.map((t) => blocked.get(t)).find(Boolean);
    let report: ItemReport;
    if (blocker) report = reportOf(it, "skipped", false, null, { code: "PRECONDITION_FAILED", message: `not attempted: the earlier item ${blocker} on the same target did not apply` });
    else if (!run.ledger) report = await step.dryRun(it, dryChecked).catch((e) => failedBefore(it, e));
    else {
      const progress = { executed: false };
      try {
        report = await step.apply(it, run.ledger, progress);
      } catch (e) {
        if (!isLedgerFailure(e) || run.signal.aborted) throw e;
        // The ledger failed: say what is known of this item, and that the rest were not attempted.
        reports.push(
          progress.executed
            ? reportOf(it, "unconfirmed", true, null, { code: e.code, message: `executed, but not confirmed: ${e.message}; the next apply reconciles it` })
            : reportOf(it, "failed", false, null, { code: e.code, message: e.message }),
        );
        for (const rest of run.plan.items.slice(index + 1)) reports.push(reportOf(rest, "skipped", false, null, { code: e.code, message: "not attempted: the ledger failed" }));
        return { reports, stoppedBy: e };
      }
    }
    reports.push(report);
    if (!IN_PLACE.has(report.outcome) && report.outcome !== "would-apply") for (const t of it.target_resource_ids) if (!blocked.has(t)) blocked.set(t, it.id);
  }
  return { reports, stoppedBy: null };
}

/** A failure of the tool's own checks before anything was executed. */
const failedBefore = (it: PlanItem, e: unknown): ItemReport => {
  if (!(e instanceof KitError)) throw e;
  return reportOf(it, "failed", false, null, { code: e.code, message: e.message });
};

const reportOf = (it: PlanItem, outcome: ItemOutcome, executed: boolean, result: unknown = null, error: ItemReport["error"] = null): ItemReport => ({
  id: it.id,
  action: it.action,
  executed,
  outcome,
  result,
  error,
});

/** One item's way through the ledger protocol, a method per step. */
class ItemStep {
  private readonly owner = `${hostname()}/${process.pid}/${crypto.randomUUID().slice(0, 8)}`;
  private readonly faults: Failpoints;
  private readonly leaseMs: number;
  private readonly actor: string;
  private executions = 0;
  private fences = 0;

  constructor(private readonly run: ApplyRun) {
    this.faults = failpointsOf(run.env);
    this.leaseMs = leaseOf(run.env);
    this.actor = run.env.AGENT_ACTOR || `${safeUser()}@${hostname()}`;
  }

  private action(it: PlanItem): ActionSpec {
    return this.run.mutations.actions[it.action]!;
  }

  private context(it: PlanItem, signal: AbortSignal, fence: () => Promise<void>): ExecContext {
    return { plan: this.run.plan, env: this.run.env, signal, idempotencyKey: it.idempotency_key, fence };
  }

  /** Why the item's targets are not as planned, or null when they are. */
  private async stale(it: PlanItem): Promise<string | null> {
    for (const c of it.preconditions) {
      const live = await this.run.mutations.readTarget(c.target, { plan: this.run.plan, env: this.run.env, signal: this.run.signal });
      const version = live?.version ?? null;
      if (version !== c.version) return `${c.target} is ${version === null ? "gone" : `at ${version.slice(0, 19)}…`}, not ${c.version === null ? "absent" : `${c.version.slice(0, 19)}…`} as planned`;
    }
    return null;
  }

  /** A dry run changes nothing, so only the first item on a target can be checked against it; later ones expect what the earlier leave. */
  async dryRun(it: PlanItem, checked: Set<string>): Promise<ItemReport> {
    if (it.target_resource_ids.every((t) => checked.has(t))) return reportOf(it, "would-apply", false);
    for (const t of it.target_resource_ids) checked.add(t);
    const stale = await this.stale(it);
    if (stale === null) return reportOf(it, "would-apply", false);
    const x = this.context(it, this.run.signal, async () => {});
    if (await this.action(it).landed(it, x)) return reportOf(it, "already-applied", false);
    return reportOf(it, "failed", false, null, { code: "PRECONDITION_FAILED", message: stale });
  }

  async apply(it: PlanItem, ledger: Ledger, progress: { executed: boolean }): Promise<ItemReport> {
    const claim = await this.claim(it, ledger);
    if (claim.kind === "conflict") return reportOf(it, "failed", false, null, { code: "CONFLICT", message: `the ledger holds key ${it.idempotency_key.slice(0, 19)}… with different params: a conflict, never a replay` });
    if (claim.kind === "busy") return reportOf(it, "in-progress", false, null, { code: "IN_PROGRESS", message: `another apply (${claim.owner}) holds this item until ${new Date(claim.leaseUntil).toISOString()}` });
    if (claim.kind === "settled") {
      if (claim.outcome === "applied") return reportOf(it, "already-applied", false, claim.result);
      const stored = claim.result as { error?: ItemReport["error"] } | null;
      return reportOf(it, "failed", false, claim.result, stored?.error ?? { code: "UPSTREAM_ERROR", message: "this item failed in an earlier run" });
    }
    const fence: Fence = { key: it.idempotency_key, owner: this.owner, generation: claim.generation };
    const lease = new Lease(ledger, fence, this.leaseMs, this.run.now, this.run.signal, this.faults.heartbeat);
    try {
      return await this.execute(it, ledger, fence, lease, claim.takeover ? claim.previousOwner ?? "an earlier run" : null, progress);
    } finally {
      lease.stop();
    }
  }

  private async claim(it: PlanItem, ledger: Ledger) {
    const fingerprint = sha256(canonicalJson(it.params));
    const request = () =>
      ledger.claim({ key: it.idempotency_key, fingerprint, tool: this.run.tool, action: it.action, plan: this.run.plan.checksum, item: it.id, owner: this.owner, leaseMs: this.leaseMs, now: this.run.now() });
    let claim = await request();
    while (claim.kind === "busy" && this.run.wait) {
      this.run.signal.throwIfAborted();
      await Bun.sleep(POLL_MS);
      claim = await request();
    }
    return claim;
  }

  private async execute(it: PlanItem, ledger: Ledger, fence: Fence, lease: Lease, takenFrom: string | null, progress: { executed: boolean }): Promise<ItemReport> {
    const action = this.action(it);
    const x = this.context(it, lease.signal, async () => {
      await lease.fence();
      if (++this.fences === this.faults.killAtCommit) crashNow();
    });
    const started = this.run.now();
    const settle = async (outcome: "applied" | "failed", executed: boolean, logOutcome: string, result: unknown): Promise<boolean> => {
      const now = this.run.now();
      const log = { at: now, actor: this.actor, tool: this.run.tool, action: it.action, plan: this.run.plan.checksum, item: it.id, key: it.idempotency_key, outcome: logOutcome, executed, startedAt: started, finishedAt: now, detail: result };
      return ledger.settle(fence, { outcome, result, now, log });
    };
    const lost = (executed: boolean): ItemReport =>
      reportOf(it, executed ? "unconfirmed" : "in-progress", executed, null, { code: "IN_PROGRESS", message: `lost the ledger lease on item ${it.id}: another apply took it over${executed ? " after this one executed it; it reconciles the item" : ""}` });
    const reconciled = async (why: Record<string, unknown>): Promise<ItemReport> => ((await settle("applied", false, "reconciled", why)) ? reportOf(it, "reconciled", false) : lost(false));

    let executing = false;
    let result: Record<string, unknown>;
    try {
      // A takeover means a previous owner may have executed and died before confirming: read external truth first.
      if (takenFrom !== null) {
        await action.recover?.(it, x);
        if (await action.landed(it, x)) return reconciled({ reconciled_from: takenFrom });
      }
      const stale = await this.stale(it);
      if (stale !== null) {
        if (await action.landed(it, x)) return reconciled({ reconciled: "the change was already in place" });
        await ledger.release(fence, "forget");
        return reportOf(it, "failed", false, null, { code: "PRECONDITION_FAILED", message: stale });
      }
      const delay = this.faults.delayMs(this.executions + 1);
      if (delay > 0) await Bun.sleep(delay);
      executing = true;
      result = await action.execute(it, x);
    } catch (e) {
      if (isLedgerFailure(e)) throw e;
      // A stale owner finds the change made by the apply that took the item over: say so, not "precondition failed".
      if (e instanceof KitError && e.code === "PRECONDITION_FAILED" && !(await lease.holds())) return lost(false);
      return this.failed(it, e, executing, fence, ledger, settle, lost);
    }
    progress.executed = true;
    if (++this.executions === this.faults.killAfterExecute) crashNow();
    return (await settle("applied", true, "applied", result)) ? reportOf(it, "applied", true, result) : lost(true);
  }

  /** Only a final outcome is stored; a retryable failure releases the item so the next run reconciles it. */
  private async failed(
    it: PlanItem,
    e: unknown,
    executing: boolean,
    fence: Fence,
    ledger: Ledger,
    settle: (o: "failed", executed: boolean, log: string, result: unknown) => Promise<boolean>,
    lost: (executed: boolean) => ItemReport,
  ): Promise<ItemReport> {
    if (e instanceof KitError && e.code === "IN_PROGRESS") return lost(false);
    // Refused before any side effect (by the executor, or by the checks before it): nothing to store or reconcile.
    if (e instanceof KitError && (e.code === "PRECONDITION_FAILED" || (!executing && !e.retryable))) {
      await ledger.release(fence, "forget");
      return reportOf(it, "failed", false, null, { code: e.code, message: e.message });
    }
    if (e instanceof KitError && !e.retryable) {
      const error = { code: e.code, message: e.message };
      return (await settle("failed", true, "failed", { error })) ? reportOf(it, "failed", true, null, error) : lost(false);
    }
    // Anything else (a system error, a passing failure) is not a decision about the item: never stored.
    const known = e instanceof KitError ? e : fromSystemError(e);
    const error = known ? { code: known.code, message: known.message } : { code: "UPSTREAM_ERROR" as ErrorCode, message: (e as Error).message };
    await ledger.release(fence, "reconcile");
    return reportOf(it, "failed", false, null, { code: error.code, message: `${error.message} (not stored: a re-run tries the item again)` });
  }
}

/**
 * The item's lease: renewed by a heartbeat while it executes; `fence()` proves
 * it still holds. A lease confirmed less than half its length ago cannot have
 * been taken over (a takeover needs it expired, and our process is alive), so
 * the fence asks the ledger only past that point: a quick item costs no extra
 * round trip. (This trusts the appliers' clocks to agree within half a lease.)
 */
class Lease {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setInterval> | null;
  private readonly onParentAbort: () => void;
  private lost = false;
  private confirmedAt: number;

  constructor(
    private readonly ledger: Ledger,
    private readonly f: Fence,
    private readonly ms: number,
    private readonly now: () => number,
    private readonly parent: AbortSignal,
    heartbeat: boolean,
  ) {
    this.confirmedAt = now();
    this.onParentAbort = () => this.controller.abort(parent.reason);
    parent.addEventListener("abort", this.onParentAbort, { once: true });
    this.timer = heartbeat ? setInterval(() => void this.renew().catch(() => {}), Math.max(100, Math.floor(ms / 3))) : null;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private async renew(): Promise<boolean> {
    if (this.lost) return false;
    const now = this.now();
    if (await this.ledger.renew(this.f, now + this.ms, now)) {
      this.confirmedAt = now;
      return true;
    }
    this.lost = true;
    this.controller.abort(new KitError("IN_PROGRESS", "the item's ledger lease was taken over"));
    return false;
  }

  /** Whether this run still holds the item (asking the ledger, and renewing the lease if so). */
  async holds(): Promise<boolean> {
    return this.renew();
  }

  async fence(): Promise<void> {
    if (!this.lost && this.now() - this.confirmedAt < this.ms / 2) return;
    if (!(await this.renew())) throw new KitError("IN_PROGRESS", "this apply no longer holds the item: its lease was taken over by another apply", { hint: "re-run the same apply; it reconciles the item" });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.parent.removeEventListener("abort", this.onParentAbort);
  }
}

function leaseOf(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[LEASE_ENV];
  if (raw === undefined || raw === "") return DEFAULT_LEASE_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < MIN_LEASE_MS)
    throw new KitError("INVALID_INPUT", `${LEASE_ENV} must be a whole number of milliseconds, at least ${MIN_LEASE_MS} (got: '${raw}')`, { got: raw, hint: `unset ${LEASE_ENV} for the default of ${DEFAULT_LEASE_MS} ms` });
  return n;
}

const safeUser = (): string => {
  try {
    return userInfo().username;
  } catch {
    return "unknown";
  }
};
