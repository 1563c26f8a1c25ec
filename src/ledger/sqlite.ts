/** The embedded ledger engine: one SQLite file, WAL, writers serialised by BEGIN IMMEDIATE. */
import { Database } from "bun:sqlite";
import { hostname } from "node:os";
import { decide, itemRow, logRow, MIGRATIONS, type ActionLogRow, type Claim, type ClaimRequest, type Ledger, type Outcome } from "./ledger.ts";

export function openSqlite(path: string): Ledger {
  const db = new Database(path, { create: true, strict: true });
  db.run("PRAGMA busy_timeout = 10000");
  db.run("PRAGMA journal_mode = WAL");
  db.run("PRAGMA synchronous = NORMAL");
  migrate(db);
  const host = hostname();

  // IMMEDIATE takes the write lock at BEGIN: two processes never both read "no row".
  const claim = db.transaction((req: ClaimRequest): Claim => {
    const row = db.query("SELECT * FROM action_items WHERE idempotency_key = ?").get(req.key) as Parameters<typeof decide>[0] | null;
    if (!row) {
      db.query(
        `INSERT INTO action_items (idempotency_key, fingerprint, tool, action, plan_checksum, item_id, state, owner, lease_until, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'intent', ?, ?, ?, ?)`,
      ).run(req.key, req.fingerprint, req.tool, req.action, req.plan, req.item, req.owner, req.now + req.leaseMs, req.now, req.now);
      return { kind: "acquired", takeover: false, previousOwner: null };
    }
    const d = decide(row, req, host);
    if (d !== "takeover") return d;
    db.query("UPDATE action_items SET owner = ?, lease_until = ?, attempts = attempts + 1, updated_at = ? WHERE idempotency_key = ?").run(req.owner, req.now + req.leaseMs, req.now, req.key);
    return { kind: "acquired", takeover: true, previousOwner: row.owner };
  });

  return {
    engine: "sqlite",
    claim: async (req) => claim.immediate(req),
    async settle(key, owner, outcome: Outcome, result, now) {
      const r = db.query("UPDATE action_items SET state = 'settled', outcome = ?, result = ?, owner = NULL, lease_until = NULL, updated_at = ? WHERE idempotency_key = ? AND owner = ? AND state = 'intent'").run(outcome, JSON.stringify(result ?? null), now, key, owner);
      return r.changes === 1;
    },
    async release(key, owner) {
      db.query("DELETE FROM action_items WHERE idempotency_key = ? AND owner = ? AND state = 'intent'").run(key, owner);
    },
    async log(row: ActionLogRow) {
      db.query(
        `INSERT INTO action_log (at, actor, tool, action, plan_checksum, item_id, idempotency_key, outcome, executed, started_at, finished_at, detail)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(row.at, row.actor, row.tool, row.action, row.plan, row.item, row.key, row.outcome, row.executed ? 1 : 0, row.startedAt, row.finishedAt, JSON.stringify(row.detail ?? null));
    },
    async actions(filter) {
      const rows = db
        .query("SELECT * FROM action_log WHERE (?1 IS NULL OR plan_checksum = ?1) AND (?2 IS NULL OR tool = ?2) ORDER BY id")
        .all(filter.plan ?? null, filter.tool ?? null) as Record<string, unknown>[];
      return rows.map(logRow);
    },
    async item(key) {
      const r = db.query("SELECT * FROM action_items WHERE idempotency_key = ?").get(key) as Record<string, unknown> | null;
      return r ? itemRow(r) : null;
    },
    async close() {
      db.close();
    },
  };
}

function migrate(db: Database): void {
  db.transaction(() => {
    db.run("CREATE TABLE IF NOT EXISTS ledger_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
    const done = new Set((db.query("SELECT version FROM ledger_migrations").all() as { version: number }[]).map((r) => r.version));
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      for (const statement of m.sql("sqlite")) db.run(statement);
      db.query("INSERT INTO ledger_migrations (version, applied_at) VALUES (?, ?)").run(m.version, Date.now());
    }
  }).immediate();
}
