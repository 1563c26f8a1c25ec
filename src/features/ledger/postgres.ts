/**
 * The fleet-scale ledger engine: PostgreSQL through Bun's SQL client. A claim
 * inserts the intent row or locks the existing one (SELECT … FOR UPDATE), so
 * concurrent applies on many machines serialise per key.
 */
import type { SQL } from "bun";
import { hostname } from "node:os";
import type { PostgresDatabase } from "../../kit/database/index.ts";
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
  type Release,
  type LedgerOptions,
  type Settlement,
} from "../../kit/mutations/index.ts";

export async function postgresLedger({ sql, close }: PostgresDatabase, o: LedgerOptions): Promise<Ledger> {
  await migrate(sql, () => o.now());
  const host = hostname();
  return {
    engine: "postgres",
    claim: (req) => claim(sql, req, host),
    async renew(f: Fence, leaseUntil, now) {
      const r = await sql`
        UPDATE action_items SET lease_until = ${leaseUntil}, updated_at = ${now}
        WHERE idempotency_key = ${f.key} AND owner = ${f.owner} AND attempts = ${f.generation} AND state = 'intent' RETURNING idempotency_key`;
      return r.length === 1;
    },
    settle: async (f, s) => (await settleAndClaim(sql, f, s, null)).settled,
    settleAndClaim: (f, s, next) => settleAndClaim(sql, f, s, next),
    async release(f: Fence, how: Release) {
      if (how === "forget")
        await sql`DELETE FROM action_items WHERE idempotency_key = ${f.key} AND owner = ${f.owner} AND attempts = ${f.generation} AND state = 'intent'`;
      else
        await sql`UPDATE action_items SET owner = NULL, lease_until = 0 WHERE idempotency_key = ${f.key} AND owner = ${f.owner} AND attempts = ${f.generation} AND state = 'intent'`;
    },
    async actions(filter) {
      const rows = await sql`
        SELECT * FROM action_log
        WHERE (${filter.plan ?? null}::text IS NULL OR plan_checksum = ${filter.plan ?? null})
          AND (${filter.tool ?? null}::text IS NULL OR tool = ${filter.tool ?? null})
        ORDER BY id`;
      return (rows as Record<string, unknown>[]).map(logRow);
    },
    async item(key) {
      const [r] = await sql`SELECT * FROM action_items WHERE idempotency_key = ${key}`;
      return r ? itemRow(r) : null;
    },
    close,
  };
}

/**
 * `r`'s intent row, unless its key is in the ledger already (RETURNING says
 * which); `from` makes it conditional on a row of an earlier CTE.
 */
const insertIntent = (sql: SQL, r: ClaimRequest, from = sql``) => sql`
  INSERT INTO action_items (idempotency_key, fingerprint, tool, action, plan_checksum, item_id, state, owner, lease_until, created_at, updated_at)
  SELECT ${r.key}, ${r.fingerprint}, ${r.tool}, ${r.action}, ${r.plan}, ${r.item}, 'intent', ${r.owner}, ${r.now + r.leaseMs}, ${r.now}, ${r.now} ${from}
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING idempotency_key`;

/**
 * One statement: the settlement and its action-log row land together or not
 * at all, and with them, when the item settled, the intent row of `next`
 * (none when its key is already in the ledger).
 */
async function settleAndClaim(
  sql: SQL,
  f: Fence,
  s: Settlement,
  next: ClaimRequest | null,
): Promise<{ settled: boolean; next: Claim | null }> {
  const row = s.log;
  const [r] = await sql`
    WITH settled AS (
      UPDATE action_items SET state = 'settled', outcome = ${s.outcome}, result = ${JSON.stringify(s.result ?? null)}, owner = NULL, lease_until = NULL, updated_at = ${s.now}
      WHERE idempotency_key = ${f.key} AND owner = ${f.owner} AND attempts = ${f.generation} AND state = 'intent'
      RETURNING idempotency_key),
    logged AS (
      INSERT INTO action_log (at, actor, tool, action, plan_checksum, item_id, idempotency_key, outcome, executed, started_at, finished_at, detail)
      SELECT ${row.at}, ${row.actor}, ${row.tool}, ${row.action}, ${row.plan}, ${row.item}, ${row.key}, ${row.outcome}, ${row.executed}, ${row.startedAt}, ${row.finishedAt}, ${JSON.stringify(row.detail ?? null)}
      FROM settled RETURNING id)
    ${next ? sql`, claimed AS (${insertIntent(sql, next, sql`FROM logged`)})` : sql``}
    SELECT (SELECT count(*) FROM logged)::int AS settled, ${next ? sql`(SELECT count(*) FROM claimed)::int` : sql`0`} AS claimed`;
  return { settled: r.settled === 1, next: r.claimed === 1 ? FRESH_CLAIM : null };
}

/** The intent row inserted, or the existing one locked (SELECT … FOR UPDATE) and decided. */
async function claim(sql: SQL, req: ClaimRequest, host: string): Promise<Claim> {
  for (;;) {
    // The common case, a key nobody has claimed, is one statement and one round trip.
    if ((await insertIntent(sql, req)).length === 1) return FRESH_CLAIM;
    const decided = await sql.begin(async (tx): Promise<Claim | null> => {
      const [row] = await tx`SELECT * FROM action_items WHERE idempotency_key = ${req.key} FOR UPDATE`;
      // Released and forgotten between the insert and this read: insert it afresh.
      if (!row) return null;
      const d = decide(row, req, host);
      if (d !== "takeover") return d;
      const [taken] = await tx`
        UPDATE action_items SET owner = ${req.owner}, lease_until = ${req.now + req.leaseMs}, attempts = attempts + 1, updated_at = ${req.now}
        WHERE idempotency_key = ${req.key} RETURNING attempts`;
      return {
        kind: "acquired",
        takeover: true,
        previousOwner: row.owner as string | null,
        generation: Number(taken.attempts),
      };
    });
    if (decided) return decided;
  }
}

async function migrate(sql: SQL, now: () => number): Promise<void> {
  await sql.begin(async (tx) => {
    // One migrator at a time across every machine sharing the ledger.
    await tx`SELECT pg_advisory_xact_lock(7342001)`;
    await tx`CREATE TABLE IF NOT EXISTS ledger_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`;
    const done = new Set(
      ((await tx`SELECT version FROM ledger_migrations`) as { version: number }[]).map((r) => r.version),
    );
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      for (const statement of m.sql("postgres")) await tx.unsafe(statement);
      await tx`INSERT INTO ledger_migrations (version, applied_at) VALUES (${m.version}, ${now()})`;
    }
  });
}
