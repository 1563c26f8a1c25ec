/** The embedded ledger engine: one SQLite file (opened by the kit's database/), writers serialised by BEGIN IMMEDIATE. */
import type { Database } from "bun:sqlite";
import { hostname } from "node:os";
import type { SqliteDatabase } from "../../kit/database/index.ts";
import {
  decide,
  FRESH_CLAIM,
  itemRow,
  logRow,
  MIGRATIONS,
  type Claim,
  type ClaimRequest,
  type Fence,
  type Ledger,
  type LedgerOptions,
  type Settlement,
} from "../../kit/mutations/index.ts";

/** Every statement the protocol runs, prepared once per open. */
const statements = (db: Database) => ({
  get: db.query("SELECT * FROM action_items WHERE idempotency_key = ?"),
  insert: db.query(
    `INSERT INTO action_items (idempotency_key, fingerprint, tool, action, plan_checksum, item_id, state, owner, lease_until, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 'intent', ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING`,
  ),
  takeover: db.query(
    "UPDATE action_items SET owner = ?, lease_until = ?, attempts = attempts + 1, updated_at = ? WHERE idempotency_key = ? RETURNING attempts",
  ),
  renew: db.query(
    "UPDATE action_items SET lease_until = ?, updated_at = ? WHERE idempotency_key = ? AND owner = ? AND attempts = ? AND state = 'intent'",
  ),
  settle: db.query(
    "UPDATE action_items SET state = 'settled', outcome = ?, result = ?, owner = NULL, lease_until = NULL, updated_at = ? WHERE idempotency_key = ? AND owner = ? AND attempts = ? AND state = 'intent'",
  ),
  log: db.query(
    `INSERT INTO action_log (at, actor, tool, action, plan_checksum, item_id, idempotency_key, outcome, executed, started_at, finished_at, detail)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  forget: db.query(
    "DELETE FROM action_items WHERE idempotency_key = ? AND owner = ? AND attempts = ? AND state = 'intent'",
  ),
  reconcile: db.query(
    "UPDATE action_items SET owner = NULL, lease_until = 0 WHERE idempotency_key = ? AND owner = ? AND attempts = ? AND state = 'intent'",
  ),
});

/** The protocol's writes: each decision made under the write lock it reads under. */
function writers(db: Database, q: ReturnType<typeof statements>, host: string) {
  const insert = (req: ClaimRequest): boolean =>
    q.insert.run(
      req.key,
      req.fingerprint,
      req.tool,
      req.action,
      req.plan,
      req.item,
      req.owner,
      req.now + req.leaseMs,
      req.now,
      req.now,
    ).changes === 1;

  // The common case, a key nobody has claimed, is one statement: the insert is atomic on its own.
  // Otherwise IMMEDIATE takes the write lock at BEGIN, so the row read is the row decided on.
  const claimTaken = db.transaction((req: ClaimRequest): Claim => {
    const row = q.get.get(req.key) as Parameters<typeof decide>[0] | null;
    // Released and forgotten between the insert and this read: claim it afresh (the write lock is held).
    if (!row) {
      insert(req);
      return FRESH_CLAIM;
    }
    const d = decide(row, req, host);
    if (d !== "takeover") return d;
    const { attempts } = q.takeover.get(req.owner, req.now + req.leaseMs, req.now, req.key) as { attempts: number };
    return { kind: "acquired", takeover: true, previousOwner: row.owner, generation: attempts };
  });

  const settleRow = (f: Fence, s: Settlement): boolean => {
    if (q.settle.run(s.outcome, JSON.stringify(s.result ?? null), s.now, f.key, f.owner, f.generation).changes !== 1)
      return false;
    const row = s.log;
    q.log.run(
      row.at,
      row.actor,
      row.tool,
      row.action,
      row.plan,
      row.item,
      row.key,
      row.outcome,
      row.executed ? 1 : 0,
      row.startedAt,
      row.finishedAt,
      JSON.stringify(row.detail ?? null),
    );
    return true;
  };
  const settle = db.transaction(settleRow);
  const settleAndClaim = db.transaction((f: Fence, s: Settlement, next: ClaimRequest) => {
    if (!settleRow(f, s)) return { settled: false, next: null };
    return { settled: true, next: insert(next) ? FRESH_CLAIM : null };
  });

  return { insert, claimTaken, settle, settleAndClaim };
}

export async function sqliteLedger({ db, close }: SqliteDatabase, o: LedgerOptions): Promise<Ledger> {
  migrate(db, () => o.now());
  const q = statements(db);
  const { insert, claimTaken, settle, settleAndClaim } = writers(db, q, hostname());

  return {
    engine: "sqlite",
    claim: async (req) => (insert(req) ? FRESH_CLAIM : claimTaken.immediate(req)),
    renew: async (f, leaseUntil, now) => q.renew.run(leaseUntil, now, f.key, f.owner, f.generation).changes === 1,
    settle: async (f, s) => settle.immediate(f, s),
    settleAndClaim: async (f, s, next) => settleAndClaim.immediate(f, s, next),
    async release(f, how) {
      (how === "forget" ? q.forget : q.reconcile).run(f.key, f.owner, f.generation);
    },
    async actions(filter) {
      const rows = db
        .query(
          "SELECT * FROM action_log WHERE (?1 IS NULL OR plan_checksum = ?1) AND (?2 IS NULL OR tool = ?2) ORDER BY id",
        )
        .all(filter.plan ?? null, filter.tool ?? null) as Record<string, unknown>[];
      return rows.map(logRow);
    },
    async item(key) {
      const r = q.get.get(key) as Record<string, unknown> | null;
      return r ? itemRow(r) : null;
    },
    close,
  };
}

function migrate(db: Database, now: () => number): void {
  db.transaction(() => {
    db.run("CREATE TABLE IF NOT EXISTS ledger_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
    const done = new Set(
      (db.query("SELECT version FROM ledger_migrations").all() as { version: number }[]).map((r) => r.version),
    );
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      for (const statement of m.sql("sqlite")) db.run(statement);
      db.query("INSERT INTO ledger_migrations (version, applied_at) VALUES (?, ?)").run(m.version, now());
    }
  }).immediate();
}
