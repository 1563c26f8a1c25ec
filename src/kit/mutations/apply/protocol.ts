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
import { sha256 } from "../../pipeline/index.ts";
import { actionOf, type ActionSpec, type ExecContext } from "../actions.ts";
import { assertItemWithin } from "../effects.ts";
import { failpointsOf, type Failpoints } from "../failpoints.ts";
import type { Claim, ClaimRequest, Fence, Ledger } from "../ledger/ledger.ts";
import { canonicalJson, type PlanItem } from "../plan.ts";
import { type ApplyRun, HeldItem, type ItemOwner } from "./held-item.ts";
import { Lease, leaseOf } from "./lease.ts";
import { NO_IDENTITY, reportOf, safeUser, type ItemReport } from "./report.ts";

export type { ApplyRun } from "./held-item.ts";

const POLL_MS = 50;

/** What the whole run shares: who it is, how long its leases last, what a test asked to break. */
export class Applier implements ItemOwner {
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
    return actionOf(this.run.mutations, it.action)!;
  }

  context(it: PlanItem, signal: AbortSignal, fence: () => Promise<void>): ExecContext {
    return {
      plan: this.run.plan,
      env: this.run.env,
      signal,
      idempotencyKey: it.idempotency_key,
      fence,
      now: () => this.run.now(),
      ...(this.run.identity ?? NO_IDENTITY),
    };
  }

  /** precondition: why the item's targets are not as planned, or null when they are. */
  async stale(it: PlanItem): Promise<string | null> {
    for (const c of it.preconditions) {
      const live = await this.run.mutations.readTarget(c.target, {
        plan: this.run.plan,
        env: this.run.env,
        signal: this.run.signal,
      });
      const version = live?.version ?? null;
      if (version !== c.version)
        return `${c.target} is ${version === null ? "gone" : `at ${version.slice(0, 19)}…`}, not ${c.version === null ? "absent" : `${c.version.slice(0, 19)}…`} as planned`;
    }
    return null;
  }

  /** A dry run changes nothing, so only the first item on a target can be checked against it; later ones expect what the earlier leave. */
  async dryRun(it: PlanItem, checked: Set<string>): Promise<ItemReport> {
    if (it.target_resource_ids.every((t) => checked.has(t))) return reportOf(it, "would-apply", false);
    for (const t of it.target_resource_ids) checked.add(t);
    const stale = await this.stale(it);
    if (stale === null)
      return assertItemWithin(it, this.run.mutations, this.run).then(() => reportOf(it, "would-apply", false));
    const x = this.context(it, this.run.signal, async () => {});
    if (await this.action(it).landed(it, x)) return reportOf(it, "already-applied", false);
    return reportOf(it, "failed", false, null, { code: "PRECONDITION_FAILED", message: stale });
  }

  /** claim, then the rest of the protocol for an item this run now holds; `next`, the item after it if nothing blocks it, is claimed with this one's settlement. */
  async apply(
    it: PlanItem,
    ledger: Ledger,
    progress: { executed: boolean },
    next: PlanItem | null,
  ): Promise<ItemReport> {
    const { claim, at } = await this.claim(it, ledger);
    if (claim.kind === "conflict")
      return reportOf(it, "failed", false, null, {
        code: "CONFLICT",
        message: `the ledger holds key ${it.idempotency_key.slice(0, 19)}… with different params: a conflict, never a replay`,
      });
    if (claim.kind === "busy")
      return reportOf(it, "in-progress", false, null, {
        code: "IN_PROGRESS",
        message: `another apply (${claim.owner}) holds this item until ${new Date(claim.leaseUntil).toISOString()}`,
      });
    if (claim.kind === "settled") {
      if (claim.outcome === "applied") return reportOf(it, "already-applied", false, claim.result);
      const stored = claim.result as { error?: ItemReport["error"] } | null;
      return reportOf(
        it,
        "failed",
        false,
        claim.result,
        stored?.error ?? { code: "UPSTREAM_ERROR", message: "this item failed in an earlier run" },
      );
    }
    const fence: Fence = { key: it.idempotency_key, owner: this.owner, generation: claim.generation };
    const lease = new Lease(ledger, fence, this.leaseMs, this.run.now, this.run.signal, this.faults.heartbeat, at);
    try {
      return await new HeldItem(this, it, next, ledger, fence, lease).run(
        claim.takeover ? (claim.previousOwner ?? "an earlier run") : null,
        progress,
      );
    } finally {
      lease.stop();
    }
  }

  /** What a claim of `it` asks of the ledger, as of `now`. */
  request(it: PlanItem, now: number): ClaimRequest {
    return {
      key: it.idempotency_key,
      fingerprint: sha256(canonicalJson(it.params)),
      tool: this.run.tool,
      action: it.action,
      plan: this.run.plan.checksum,
      item: it.id,
      owner: this.owner,
      leaseMs: this.leaseMs,
      now,
    };
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
    if (ahead.claim.kind === "acquired")
      await ledger.release({ key: ahead.key, owner: this.owner, generation: ahead.claim.generation }, "forget");
  }
}
