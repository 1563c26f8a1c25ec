/**
 * SQLite: a file made owner-only before SQLite opens it (its -wal and -shm
 * files take the same mode: a ledger names what was written where, a note
 * index holds the notes), in WAL mode with synchronous NORMAL, and a busy
 * timeout so that processes sharing the file take turns.
 */
import { Database } from "bun:sqlite";
import { closeSync, openSync } from "node:fs";
import type { DatabaseOptions } from "./options.ts";

export interface SqliteDatabase {
  readonly engine: "sqlite";
  readonly db: Database;
  /** The file (or `:memory:`). */
  readonly path: string;
  close(): Promise<void>;
}

const BUSY_TIMEOUT_MS = 10_000;
const inMemory = (path: string): boolean => path === ":memory:" || path.startsWith("file:");

/** The file at `path` (`sqlite:PATH` and `sqlite://PATH` name it too), opened as every SQLite file of the kit is. */
export function openSqlite(url: string, o: DatabaseOptions = {}): SqliteDatabase {
  const path = url.replace(/^sqlite:(\/\/)?/i, "");
  const busyMs = o.busyTimeoutMs ?? BUSY_TIMEOUT_MS;
  const db = withBusyRetry(busyMs, () => {
    if (o.create !== false && !inMemory(path)) closeSync(openSync(path, "a", 0o600));
    const d = new Database(path, { create: o.create !== false, strict: true });
    try {
      d.run(`PRAGMA busy_timeout = ${busyMs}`);
      // Switching to WAL upgrades a read lock to a write lock, and SQLite answers SQLITE_BUSY at once
      // without calling the busy handler: two processes opening a new file together would fail. Hence the retry.
      if (!inMemory(path)) d.run("PRAGMA journal_mode = WAL");
      d.run("PRAGMA synchronous = NORMAL");
      for (const p of o.pragmas ?? []) d.run(`PRAGMA ${p}`);
      return d;
    } catch (e) {
      d.close();
      throw e;
    }
  });
  return { engine: "sqlite", db, path, close: async () => db.close() };
}

/** SQLite's answer when a file stayed locked: not damage, and worth waiting for. */
export const isBusy = (e: unknown): boolean =>
  /SQLITE_BUSY|database is locked/i.test(`${(e as { code?: string }).code ?? ""} ${(e as Error).message ?? ""}`);

/** Runs `open` again while SQLite reports the file busy, for as long as the busy timeout would have waited (a monotonic clock: a duration, not a date). */
function withBusyRetry<T>(busyMs: number, open: () => T): T {
  const deadline = performance.now() + busyMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return open();
    } catch (e) {
      if (!isBusy(e) || performance.now() > deadline) throw e;
      Bun.sleepSync(Math.min(100, 5 * 2 ** attempt) * (0.5 + Math.random()));
    }
  }
}
