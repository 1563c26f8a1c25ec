/**
 * The note index's SQLite file: made, opened, and replaced when it is not an
 * index of this format, so that no call ever trusts a damaged or foreign file
 * and no call ever opens one half made.
 */
import type { Database } from "bun:sqlite";
import { openDatabase } from "agent-cli-kit/database";
import { existsSync, linkSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";

export const FORMAT = "brain-index-5";

/** How long a call waits for another to finish writing the index. */
export const BUSY_TIMEOUT_MS = 600_000;

/** SQLite's answer when the index stayed locked for the whole busy timeout: not damage. */
export const isBusy = (e: unknown): boolean =>
  /SQLITE_BUSY|database is locked/i.test(`${(e as { code?: string }).code ?? ""} ${(e as Error).message ?? ""}`);

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  // A note's words live in the FTS5 table under its files row's number: deleting them is a lookup, not a scan.
  // The rows stay small (a note's text lives in the other tables), so that ranking thousands of notes reads few pages.
  `CREATE TABLE IF NOT EXISTS files (
     n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, size INTEGER NOT NULL, mtime_ns TEXT NOT NULL, ctime_ns TEXT NOT NULL, ino TEXT NOT NULL, read_ns TEXT NOT NULL,
     title TEXT, tags TEXT, created TEXT, updated TEXT, source TEXT, bytes INTEGER, blob TEXT, unreadable TEXT)`,
  // Each note's tags, one row each: a --tag filter reads the notes that have the tag, not every note's list.
  "CREATE TABLE IF NOT EXISTS note_tags (tag TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (tag, n)) WITHOUT ROWID",
  // The few notes set apart as unreadable, found without reading every row.
  "CREATE INDEX IF NOT EXISTS files_unreadable ON files (id) WHERE unreadable IS NOT NULL",
  // The notes of the indexed commit's tree: a file that is not one of them is untracked, never clean.
  "CREATE TABLE IF NOT EXISTS committed (id TEXT PRIMARY KEY) WITHOUT ROWID",
  // Notes whose file may differ from the indexed commit's, or be missing from it: checked on every call.
  "CREATE TABLE IF NOT EXISTS pending (id TEXT PRIMARY KEY) WITHOUT ROWID",
  // The body as written is the FTS table's own copy; `folded` holds title and body case-folded as JavaScript folds them
  // (SQLite's lower() folds ASCII only), for --text.
  "CREATE VIRTUAL TABLE IF NOT EXISTS words USING fts5(title, tags, body, tokenize='unicode61 remove_diacritics 2')",
  "CREATE TABLE IF NOT EXISTS folded (n INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)",
];

export interface Warn {
  warn(message: string): void;
}

/** The database at `file`, made if absent, rebuilt if it is not an index of this format; in memory without a file or if it cannot be kept. */
export function openIndexFile(file: string | null, log: Warn): Database {
  if (!file) return fresh(":memory:");
  try {
    mkdirSync(dirname(file), { recursive: true });
    if (!existsSync(file)) return install(file);
    try {
      const db = connect(file);
      // Damage deeper than this header shows up as an error on first use, and is rebuilt then (replaceIndexFile).
      const format = (db.query("SELECT value FROM meta WHERE key = 'format'").get() as { value: string } | null)?.value;
      if (format === FORMAT) return db;
      db.close();
      log.warn(`the note index ${file} is of another format: rebuilding it`);
    } catch (e) {
      log.warn(`the note index ${file} cannot be read (${(e as Error).message}): rebuilding it`);
    }
    return replaceIndexFile(file);
  } catch (e) {
    log.warn(
      `the note index cannot be kept in ${dirname(file)} (${(e as Error).message}): indexing in memory for this call`,
    );
    return fresh(":memory:");
  }
}

/**
 * A first index at `file`, made aside and linked into place only if no
 * call got there first (link fails where a file exists; rename would not):
 * calls racing to build the first index all end up on one file, and none
 * removes the write-ahead log of a file another call has open.
 */
function install(file: string): Database {
  return madeAside(file, (temp) => {
    try {
      linkSync(temp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  });
}

/**
 * A new, empty index put in place at `file` in one rename, so that a call
 * running at the same moment opens either the old file or a complete new
 * one, never one half made (and never one deleted under it).
 */
export function replaceIndexFile(file: string): Database {
  return madeAside(file, (temp) => {
    // An old file's write-ahead log must not be replayed into the new one.
    for (const side of ["-wal", "-shm"]) rmSync(`${file}${side}`, { force: true });
    renameSync(temp, file);
  });
}

/** A fresh index made in a temporary file, put in place at `file` by `place`, then opened there. */
function madeAside(file: string, place: (temp: string) => void): Database {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  try {
    fresh(temp).close();
    place(temp);
  } finally {
    rmSync(temp, { force: true });
  }
  return connect(file);
}

/**
 * A connection to an index file, opened as the kit opens every SQLite file
 * (owner-only, WAL, synchronous NORMAL). The index is a cache that is rebuilt
 * when damaged, so a commit need not wait for the disk (WAL with synchronous
 * NORMAL survives a crashed process; a power cut may lose the last refresh,
 * which the next call redoes); a first build gets room for its pages.
 */
function connect(file: string, create = false): Database {
  // A call waits while another brings the index up to date (a first build of 100,000 notes takes ~20 s here).
  const opened = openDatabase(file, { create, busyTimeoutMs: BUSY_TIMEOUT_MS, pragmas: ["cache_size = -32768"] });
  if (opened.engine !== "sqlite") throw new Error(`the note index is a SQLite file, not ${file}`);
  return opened.db;
}

function fresh(file: string): Database {
  // WAL is recorded in the file's header, so every later open of the renamed file uses it.
  const db = connect(file, true);
  db.transaction(() => {
    for (const s of SCHEMA) db.run(s);
    db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('format', ?)").run(FORMAT);
  })();
  return db;
}
