/**
 * Where a receiver keeps what it accepted: one row per event, unique by
 * (job_id, event_type, event_id), so a replayed report is refused by the
 * store itself. SQLite by default; PostgreSQL when the URL says so, as the
 * ledger's convention is.
 */
import {
  type EngineName,
  type OpenedDatabase,
  openDatabase,
  type PostgresDatabase,
  type SqliteDatabase,
} from "../../kit/database/index.ts";

export interface StoredEvent {
  readonly jobId: string;
  readonly eventType: string;
  readonly eventId: string;
  readonly receivedAt: number;
  readonly body: string;
}

export interface EventStore {
  /** "replay" when the event is already stored: nothing is written. */
  record(e: StoredEvent): Promise<"stored" | "replay">;
  events(): Promise<StoredEvent[]>;
  close(): Promise<void>;
}

const TABLE = `CREATE TABLE IF NOT EXISTS harness_events (
  job_id TEXT NOT NULL, event_type TEXT NOT NULL, event_id TEXT NOT NULL, received_at BIGINT NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY (job_id, event_type, event_id))`;

const rowOf = (r: Record<string, unknown>): StoredEvent => ({
  jobId: String(r.job_id),
  eventType: String(r.event_type),
  eventId: String(r.event_id),
  receivedAt: Number(r.received_at),
  body: String(r.body),
});

function sqliteStore({ db, close }: SqliteDatabase): EventStore {
  db.run(TABLE);
  const insert = db.query(
    "INSERT INTO harness_events (job_id, event_type, event_id, received_at, body) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );
  return {
    record: async (e) =>
      insert.run(e.jobId, e.eventType, e.eventId, e.receivedAt, e.body).changes === 1 ? "stored" : "replay",
    events: async () =>
      (db.query("SELECT * FROM harness_events ORDER BY received_at, event_id").all() as Record<string, unknown>[]).map(
        rowOf,
      ),
    close,
  };
}

async function postgresStore({ sql, close }: PostgresDatabase): Promise<EventStore> {
  await sql.unsafe(TABLE);
  return {
    async record(e) {
      const r =
        await sql`INSERT INTO harness_events (job_id, event_type, event_id, received_at, body) VALUES (${e.jobId}, ${e.eventType}, ${e.eventId}, ${e.receivedAt}, ${e.body}) ON CONFLICT DO NOTHING RETURNING event_id`;
      return r.length === 1 ? "stored" : "replay";
    },
    events: async () =>
      ((await sql`SELECT * FROM harness_events ORDER BY received_at, event_id`) as Record<string, unknown>[]).map(
        rowOf,
      ),
    close,
  };
}

type StoreOn<E extends EngineName> = (db: Extract<OpenedDatabase, { engine: E }>) => EventStore | Promise<EventStore>;

/** The store on each database engine it speaks (database/engines.ts); another engine's URL is refused by name. */
const STORES: { [E in EngineName]?: StoreOn<E> } = { sqlite: sqliteStore, postgres: postgresStore };

/** A postgres:// URL, else a SQLite file (`fallbackPath` when no URL is given). */
export async function openEventStore(url: string | undefined, fallbackPath: string): Promise<EventStore> {
  const db = openDatabase(url?.trim() || fallbackPath);
  try {
    const store = STORES[db.engine] as StoreOn<EngineName> | undefined;
    if (!store) throw new Error(`the event store runs on ${Object.keys(STORES).join(" or ")}, not ${db.engine}`);
    return await store(db);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
}
