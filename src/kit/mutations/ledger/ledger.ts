/**
 * The idempotency ledger (contract §8): every plan item goes through
 * record intent → execute → confirm, keyed by its idempotency key. One
 * interface, two engines: SQLite in one file by default, PostgreSQL when
 * many machines share one ledger.
 *
 * Semantics (Stripe's idempotency keys, the IETF Idempotency-Key draft):
 * - the intent row (key, params fingerprint, owner, lease) is written before
 *   any side effect;
 * - the same key with a different fingerprint is a conflict, never a replay;
 * - the same key while another owner's lease runs is "busy" (in progress);
 * - the same key once settled returns the stored outcome, failure included;
 * - an intent whose lease expired, or whose owner process is gone, is taken
 *   over, and the caller must reconcile against external truth before
 *   executing anything;
 * - exactly once means fenced: every claim carries a generation (the row's
 *   `attempts`, raised by each takeover). Renewing the lease, settling and
 *   releasing all present (owner, generation), so an owner whose lease was
 *   taken over can never settle, and an executor asks `renew` right before
 *   its irreversible step;
 * - settle and its action-log row are one transaction: an item is never
 *   settled without its log row; the same transaction may claim the next
 *   item (one commit per item), and a crash right after it leaves that item
 *   claimed by an owner that is gone: taken over and reconciled as any other;
 * - only a final outcome is stored and replayed; a retryable failure
 *   releases the key for reconciliation (Stripe: a request that did not
 *   reach a final outcome is not replayed).
 */

export interface ClaimRequest {
  readonly key: string;
  readonly fingerprint: string;
  readonly tool: string;
  readonly action: string;
  readonly plan: string;
  readonly item: string;
  readonly owner: string;
  readonly leaseMs: number;
  readonly now: number;
}

export type Outcome = "applied" | "failed";

export type Claim =
  /** Ours to execute; `takeover` means a previous owner may have executed it already: reconcile first. */
  | {
      readonly kind: "acquired";
      readonly takeover: boolean;
      readonly previousOwner: string | null;
      readonly generation: number;
    }
  | { readonly kind: "settled"; readonly outcome: Outcome; readonly result: unknown; readonly settledAt: number }
  | { readonly kind: "busy"; readonly owner: string; readonly leaseUntil: number }
  | { readonly kind: "conflict"; readonly fingerprint: string };

/** A key nobody had: taken by inserting its intent row. */
export const FRESH_CLAIM: Claim = { kind: "acquired", takeover: false, previousOwner: null, generation: 1 };

export interface ActionLogRow {
  readonly at: number;
  readonly actor: string;
  readonly tool: string;
  readonly action: string;
  readonly plan: string;
  readonly item: string;
  readonly key: string;
  /** applied | failed | reconciled */
  readonly outcome: string;
  /** Whether this process performed the side effect (false when it reconciled one). */
  readonly executed: boolean;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly detail: unknown;
}

export interface LedgerItemRow {
  readonly key: string;
  readonly state: "intent" | "settled";
  readonly outcome: Outcome | null;
  readonly owner: string | null;
  readonly plan: string;
  readonly item: string;
}

/** Who holds an intent: the fencing token every later step presents. */
export interface Fence {
  readonly key: string;
  readonly owner: string;
  readonly generation: number;
}

export interface Settlement {
  readonly outcome: Outcome;
  readonly result: unknown;
  readonly now: number;
  /** Written in the same transaction as the settlement, or not at all. */
  readonly log: ActionLogRow;
}

/**
 * `forget`: nothing was executed (a precondition failed first): the row goes,
 * and a later run starts afresh. `reconcile`: the execution may have begun
 * (a retryable failure): the intent stays, ownerless, so the next claim is a
 * takeover that reads external truth before executing again.
 */
export type Release = "forget" | "reconcile";

export interface Ledger {
  /** The database engine it runs on (database/engines.ts). */
  readonly engine: string;
  /** Takes the key, or says who has it or how it ended. Atomic across processes. */
  claim(req: ClaimRequest): Promise<Claim>;
  /** Extends the lease to `leaseUntil`; false once the fence no longer holds (the intent was taken over or settled). */
  renew(fence: Fence, leaseUntil: number, now: number): Promise<boolean>;
  /** Records the final outcome and its action-log row atomically; false if the fence no longer holds. */
  settle(fence: Fence, s: Settlement): Promise<boolean>;
  /**
   * settle, and in the same transaction claim `next` if its key is not in the
   * ledger yet: one commit (one round trip) where there were two. The result's
   * `next` is that claim; null when the settle was refused or the key is
   * already in the ledger (claim it the usual way then).
   */
  settleAndClaim(fence: Fence, s: Settlement, next: ClaimRequest): Promise<{ settled: boolean; next: Claim | null }>;
  /** Gives the key up without a final outcome (see Release). */
  release(fence: Fence, how: Release): Promise<void>;
  actions(filter: { plan?: string; tool?: string }): Promise<ActionLogRow[]>;
  item(key: string): Promise<LedgerItemRow | null>;
  close(): Promise<void>;
}

/** The schema, versioned: each step runs once, in order, recorded in ledger_migrations. */
export const MIGRATIONS: readonly { version: number; sql: (engine: string) => string[] }[] = [
  {
    version: 1,
    sql: (engine) => [
      `CREATE TABLE action_items (
        idempotency_key TEXT PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        tool TEXT NOT NULL,
        action TEXT NOT NULL,
        plan_checksum TEXT NOT NULL,
        item_id TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('intent', 'settled')),
        owner TEXT,
        lease_until BIGINT,
        outcome TEXT CHECK (outcome IN ('applied', 'failed')),
        result TEXT,
        attempts INTEGER NOT NULL DEFAULT 1,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE TABLE action_log (
        id ${engine === "sqlite" ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"},
        at BIGINT NOT NULL,
        actor TEXT NOT NULL,
        tool TEXT NOT NULL,
        action TEXT NOT NULL,
        plan_checksum TEXT NOT NULL,
        item_id TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        outcome TEXT NOT NULL,
        executed BOOLEAN NOT NULL,
        started_at BIGINT NOT NULL,
        finished_at BIGINT NOT NULL,
        detail TEXT
      )`,
      `CREATE INDEX action_log_plan ON action_log (plan_checksum, id)`,
    ],
  },
];

/** Whether an intent's owner can no longer finish it: its lease ran out, or it was a process on this host that is gone. */
export function ownerGone(owner: string, leaseUntil: number, now: number, host: string): boolean {
  if (leaseUntil <= now) return true;
  const [ownerHost, pid] = owner.split("/");
  if (ownerHost !== host || !pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** The decision for an existing row, shared by both engines. null: acquire it. */
export function decide(
  row: {
    fingerprint: string;
    state: string;
    owner: string | null;
    lease_until: number | string | null;
    outcome: string | null;
    result: string | null;
    updated_at: number | string;
  },
  req: ClaimRequest,
  host: string,
): Claim | "takeover" {
  if (row.fingerprint !== req.fingerprint) return { kind: "conflict", fingerprint: row.fingerprint };
  if (row.state === "settled")
    return {
      kind: "settled",
      outcome: row.outcome as Outcome,
      result: row.result ? JSON.parse(row.result) : null,
      settledAt: Number(row.updated_at),
    };
  if (row.owner === req.owner) return "takeover";
  if (ownerGone(row.owner ?? "", Number(row.lease_until ?? 0), req.now, host)) return "takeover";
  return { kind: "busy", owner: row.owner ?? "", leaseUntil: Number(row.lease_until ?? 0) };
}

/** Rows as either engine returns them (BIGINT as number or string, BOOLEAN as 0/1 or true/false). */
export const logRow = (r: Record<string, unknown>): ActionLogRow => ({
  at: Number(r.at),
  actor: String(r.actor),
  tool: String(r.tool),
  action: String(r.action),
  plan: String(r.plan_checksum),
  item: String(r.item_id),
  key: String(r.idempotency_key),
  outcome: String(r.outcome),
  executed: r.executed === true || r.executed === 1,
  startedAt: Number(r.started_at),
  finishedAt: Number(r.finished_at),
  detail: r.detail ? JSON.parse(String(r.detail)) : null,
});

export const itemRow = (r: Record<string, unknown>): LedgerItemRow => ({
  key: String(r.idempotency_key),
  state: r.state as LedgerItemRow["state"],
  outcome: (r.outcome as Outcome | null) ?? null,
  owner: (r.owner as string | null) ?? null,
  plan: String(r.plan_checksum),
  item: String(r.item_id),
});
