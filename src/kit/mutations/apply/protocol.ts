/**
 * contract §8, one item through the ledger, a method per step:
 *
 *   claim → (takeover: recover, reconcile) → precondition → execute → settle + log
 *
 * where an applied item's settle + log also claims the next item, in the
 * same transaction: a crash leaves that item claimed and unexecuted, which
 * its next claim takes over and reconciles like any other.
 *
 * fenced by the claim's generation: an owner whose lease was taken over
 * neither commits nor settles. Only a final outcome is stored; a failure
 * that may pass releases the item for the next run to reconcile.
 */
import { hostname } from "node:os";
import { fromSystemError, KitError, REDISPATCH_CODES, type ErrorCode } from "../../output/errors.ts";
import { sha256 } from "../../pipeline/hash.ts";
import type { ActionSpec, ExecContext, Mutations } from "../actions.ts";
import { assertItemWithin } from "../effects.ts";
import { failpointsOf, type Failpoints } from "../failpoints.ts";
import type { Claim, ClaimRequest, Fence, Ledger } from "../ledger/ledger.ts";
import { isLedgerFailure } from "../ledger/open.ts";
import { canonicalJson, type Plan, type PlanItem } from "../plan.ts";
import { Lease, leaseOf } from "./lease.ts";
import type { RootGuard } from "./root.ts";
import { lostLease, NO_IDENTITY, reportOf, safeUser, type ItemReport } from "./report.ts";

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
  /** After each item: how many of the plan's are done. */
  readonly onItem?: (done: number, total: number) => void;
  /** The plan's approved root, resolved again before each item and each irreversible step; null when the tool declares none. */
  readonly root?: RootGuard | null;
  /** contract §10: the command's credentials and secrets out; what the ledger stores passes `redact` (a secret returned by mistake is masked). */
  readonly identity?: Pick<ExecContext, "credential" | "secretOut"> & { redact(text: string): string };
}

/** What the whole run shares: who it is, how long its leases last, what a test asked to break. */
export class Applier {
  readonly owner = `${hostname()}/${process.pid}/${crypto.randomUUID().slice(0, 8)}`;
  readonly faults: Failpoints;
  readonly leaseMs: number;
  readonly actor: string;
  executions = 0;
  fences = 0;
  settlements = 0;
  /** The next item's claim, taken in the transaction that settled the item before it. */
  ahead: { key: string; claim: Claim; at: number } | null = null;

  constructor(readonly run: ApplyRun) {
    this.faults = failpointsOf(run.env);
    this.leaseMs = leaseOf(run.env);
    this.actor = run.env.AGENT_ACTOR || `${safeUser()}@${hostname()}`;
  }

  action(it: PlanItem): ActionSpec {
    return this.run.mutations.actions[it.action]!;
  }

  context(it: PlanItem, signal: AbortSignal, fence: () => Promise<void>): ExecContext {
    return { plan: this.run.plan, env: this.run.env, signal, idempotencyKey: it.idempotency_key, fence, ...(this.run.identity ?? NO_IDENTITY) };
  }

  /** precondition: why the item's targets are not as planned, or null when they are. */
  async stale(it: PlanItem): Promise<string | null> {
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
    if (stale === null) return assertItemWithin(it, this.run.mutations, this.run).then(() => reportOf(it, "would-apply", false));
    const x = this.context(it, this.run.signal, async () => {});
    if (await this.action(it).landed(it, x)) return reportOf(it, "already-applied", false);
    return reportOf(it, "failed", false, null, { code: "PRECONDITION_FAILED", message: stale });
  }

  /** claim, then the rest of the protocol for an item this run now holds; `next`, the item after it if nothing blocks it, is claimed with this one's settlement. */
  async apply(it: PlanItem, ledger: Ledger, progress: { executed: boolean }, next: PlanItem | null): Promise<ItemReport> {
    const { claim, at } = await this.claim(it, ledger);
    if (claim.kind === "conflict") return reportOf(it, "failed", false, null, { code: "CONFLICT", message: `the ledger holds key ${it.idempotency_key.slice(0, 19)}… with different params: a conflict, never a replay` });
    if (claim.kind === "busy") return reportOf(it, "in-progress", false, null, { code: "IN_PROGRESS", message: `another apply (${claim.owner}) holds this item until ${new Date(claim.leaseUntil).toISOString()}` });
    if (claim.kind === "settled") {
      if (claim.outcome === "applied") return reportOf(it, "already-applied", false, claim.result);
      const stored = claim.result as { error?: ItemReport["error"] } | null;
      return reportOf(it, "failed", false, claim.result, stored?.error ?? { code: "UPSTREAM_ERROR", message: "this item failed in an earlier run" });
    }
    const fence: Fence = { key: it.idempotency_key, owner: this.owner, generation: claim.generation };
    const lease = new Lease(ledger, fence, this.leaseMs, this.run.now, this.run.signal, this.faults.heartbeat, at);
    try {
      return await new HeldItem(this, it, next, ledger, fence, lease).run(claim.takeover ? (claim.previousOwner ?? "an earlier run") : null, progress);
    } finally {
      lease.stop();
    }
  }

  /** What a claim of `it` asks of the ledger, as of `now`. */
  request(it: PlanItem, now: number): ClaimRequest {
    return { key: it.idempotency_key, fingerprint: sha256(canonicalJson(it.params)), tool: this.run.tool, action: it.action, plan: this.run.plan.checksum, item: it.id, owner: this.owner, leaseMs: this.leaseMs, now };
  }

  /** claim: the intent row, written before any side effect (or with the previous item's settlement); with --wait, a busy item is waited for. */
  private async claim(it: PlanItem, ledger: Ledger): Promise<{ claim: Claim; at: number }> {
    const ahead = this.ahead;
    this.ahead = null;
    if (ahead?.key === it.idempotency_key) return ahead;
    if (ahead) await this.forget(ahead, ledger);
    for (;;) {
      const req = this.request(it, this.run.now());
      const claim = await ledger.claim(req);
      if (claim.kind !== "busy" || !this.run.wait) return { claim, at: req.now };
      this.run.signal.throwIfAborted();
      await Bun.sleep(POLL_MS);
    }
  }

  /** The run ends before reaching the item claimed ahead: nothing of it was executed, so its intent row goes. */
  async dropAhead(ledger: Ledger): Promise<void> {
    const ahead = this.ahead;
    this.ahead = null;
    if (ahead) await this.forget(ahead, ledger).catch(() => {}); // a failing ledger leaves the row for the next run to take over
  }

  private async forget(ahead: { key: string; claim: Claim }, ledger: Ledger): Promise<void> {
    if (ahead.claim.kind === "acquired") await ledger.release({ key: ahead.key, owner: this.owner, generation: ahead.claim.generation }, "forget");
  }
}

/** An item this run has claimed, fenced by the claim's generation. */
class HeldItem {
  private readonly action: ActionSpec;
  private readonly x: ExecContext;
  private readonly started: number;

  constructor(
    private readonly by: Applier,
    private readonly it: PlanItem,
    private readonly next: PlanItem | null,
    private readonly ledger: Ledger,
    private readonly fence: Fence,
    private readonly lease: Lease,
  ) {
    this.action = by.action(it);
    this.x = by.context(it, lease.signal, async () => {
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
      await this.by.faults.delay(this.by.executions + 1);
      executing = true;
      result = await this.action.execute(this.it, this.x);
    } catch (e) {
      if (isLedgerFailure(e)) throw e;
      // A stale owner finds the change made by the apply that took the item over: say so, not "precondition failed".
      if (e instanceof KitError && e.code === "PRECONDITION_FAILED" && !(await this.lease.holds())) return lostLease(this.it, false);
      return this.failed(e, executing);
    }
    progress.executed = true;
    this.by.faults.crashAt("after-execute", ++this.by.executions);
    return (await this.settle("applied", true, "applied", result)) ? reportOf(this.it, "applied", true, result) : lostLease(this.it, true);
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
    if (await this.action.landed(this.it, this.x)) return this.reconciled({ reconciled: "the change was already in place" });
    await this.ledger.release(this.fence, "forget");
    return reportOf(this.it, "failed", false, null, { code: "PRECONDITION_FAILED", message: stale });
  }

  private async reconciled(why: Record<string, unknown>): Promise<ItemReport> {
    return (await this.settle("applied", false, "reconciled", why)) ? reportOf(this.it, "reconciled", false) : lostLease(this.it, false);
  }

  /** settle: the outcome and its action-log row in one transaction, refused to an owner that lost the item; an applied item's settlement also claims the next item. */
  private async settle(outcome: "applied" | "failed", executed: boolean, logOutcome: string, raw: unknown): Promise<boolean> {
    const { it, by, next } = this;
    const now = by.run.now();
    const result = by.run.identity && raw != null ? JSON.parse(by.run.identity.redact(JSON.stringify(raw))) : raw;
    const log = { at: now, actor: by.actor, tool: by.run.tool, action: it.action, plan: by.run.plan.checksum, item: it.id, key: it.idempotency_key, outcome: logOutcome, executed, startedAt: this.started, finishedAt: now, detail: result };
    const s = { outcome, result, now, log };
    const ahead = outcome === "applied" && next?.idempotency_key !== it.idempotency_key ? next : null;
    const done = ahead ? await this.ledger.settleAndClaim(this.fence, s, by.request(ahead, now)) : { settled: await this.ledger.settle(this.fence, s), next: null };
    if (ahead && done.next) by.ahead = { key: ahead.idempotency_key, claim: done.next, at: now };
    by.faults.crashAt("after-settle", ++by.settlements);
    return done.settled;
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
      return this.ledger.release(this.fence, executing ? "reconcile" : "forget").then(() => reportOf(it, "failed", false, null, { code: e.code, message: `${e.message} (not stored: a re-dispatch with fresh credentials tries the item again)` }));
    // Refused before any side effect (by the executor, the checks before it, or the fence's root check): nothing to store or reconcile.
    if (e instanceof KitError && (e.code === "PRECONDITION_FAILED" || e.code === "ROOT_CHANGED" || (!executing && !e.retryable))) {
      await this.ledger.release(this.fence, "forget");
      return reportOf(it, "failed", false, null, { code: e.code, message: e.message });
    }
    if (e instanceof KitError && !e.retryable) {
      const error = { code: e.code, message: e.message };
      return (await this.settle("failed", true, "failed", { error })) ? reportOf(it, "failed", true, null, error) : lostLease(it, false);
    }
    // Anything else (a system error, a passing failure) is not a decision about the item: never stored.
    const known = e instanceof KitError ? e : fromSystemError(e);
    const error = known ? { code: known.code, message: known.message } : { code: "UPSTREAM_ERROR" as ErrorCode, message: (e as Error).message };
    await this.ledger.release(this.fence, "reconcile");
    return reportOf(it, "failed", false, null, { code: error.code, message: `${error.message} (not stored: a re-run tries the item again)` });
  }
}
