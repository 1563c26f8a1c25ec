/**
 * brain's persisted index: every note's fields and an SQLite FTS5 table of
 * its words, in one file inside the repository's git directory
 * (`.git/brain/index-<root hash>.sqlite`: not in the work tree, not in HOME).
 *
 * It is never out of step, and needs no git process to know it: each call
 * compares every note file's size, mtime (ns) and inode with what the index
 * recorded (git's own index works the same way), re-reads only the files that
 * differ, and forgets the ones that are gone. A file changed within the
 * clock's granularity of being indexed is "racily clean" and read again, as
 * git does. So a commit, a rebase, a branch switch or a hand edit all show up
 * on the next call, committed or not. A file that is not an SQLite index of
 * this format is rebuilt, with a warning, never trusted.
 */
import { Database } from "bun:sqlite";
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { NOTE_ID, NOTES_DIR, parseNote, readNoteFile, type Note } from "./notes.ts";

const FORMAT = "brain-index-3";
/** Changes closer than this to the moment a file was read may share its mtime: read such a file again. */
const RACY_NS = 50_000_000n;

/** A note as the index keeps it; `body` only when asked for. */
export type IndexedNote = Omit<Note, "body"> & { body?: string };

export interface SearchHit {
  readonly id: string;
  readonly score: number;
  readonly tags: string[];
}

interface Logger {
  warn(message: string): void;
  /** Progress of a long (re)index, for a person at a terminal. */
  progress?(label: string, done: number, total: number): void;
}

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  // A note's words live in the FTS5 table under its files row's number: deleting them is a lookup, not a scan.
  `CREATE TABLE IF NOT EXISTS files (
     n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, size INTEGER NOT NULL, mtime_ns TEXT NOT NULL, ino TEXT NOT NULL, read_ns TEXT NOT NULL,
     title TEXT, tags TEXT, created TEXT, updated TEXT, source TEXT, bytes INTEGER, blob TEXT, body TEXT, unreadable TEXT)`,
  "CREATE VIRTUAL TABLE IF NOT EXISTS words USING fts5(title, tags, body, tokenize='unicode61 remove_diacritics 2')",
];

/** A files row as a note: its tags are kept as JSON. */
const noteOfRow = (r: Record<string, unknown>): IndexedNote => ({ ...(r as unknown as IndexedNote), tags: JSON.parse(String(r.tags)) as string[] });

export class NoteIndex {
  private constructor(
    private readonly db: Database,
    private readonly root: string,
  ) {}

  /** The index of `root`'s notes, brought up to date, kept in `gitDir`; without one, built in memory (the reference the tests compare with). */
  static open(root: string, log: Logger, gitDir: string | null): NoteIndex {
    const file = gitDir ? join(gitDir, "brain", `index-${Bun.hash(root).toString(36)}.sqlite`) : null;
    const index = new NoteIndex(NoteIndex.database(file, log), root);
    try {
      index.refresh(log);
      return index;
    } catch (e) {
      if (!file) throw e;
      index.close();
      log.warn(`the note index ${file} is damaged (${(e as Error).message}): rebuilding it`);
      const rebuilt = new NoteIndex(NoteIndex.replace(file), root);
      rebuilt.refresh(log);
      return rebuilt;
    }
  }

  /** The database at `file`, made if absent, rebuilt if it is not an index of this format; in memory if it cannot be kept. */
  private static database(file: string | null, log: Logger): Database {
    if (!file) return NoteIndex.fresh(":memory:");
    try {
      mkdirSync(dirname(file), { recursive: true });
      if (!existsSync(file)) return NoteIndex.install(file);
      try {
        const db = new Database(file, { strict: true });
        db.run("PRAGMA busy_timeout = 5000");
        // Damage deeper than this header shows up as an error on first use, and is rebuilt then (see open).
        const format = (db.query("SELECT value FROM meta WHERE key = 'format'").get() as { value: string } | null)?.value;
        if (format === FORMAT) return db;
        db.close();
        log.warn(`the note index ${file} is of another format: rebuilding it`);
      } catch (e) {
        log.warn(`the note index ${file} cannot be read (${(e as Error).message}): rebuilding it`);
      }
      return NoteIndex.replace(file);
    } catch (e) {
      log.warn(`the note index cannot be kept in ${dirname(file)} (${(e as Error).message}): indexing in memory for this call`);
      return NoteIndex.fresh(":memory:");
    }
  }

  /**
   * A first index at `file`, made aside and linked into place only if no
   * call got there first (link fails where a file exists; rename would not):
   * calls racing to build the first index all end up on one file, and none
   * removes the write-ahead log of a file another call has open.
   */
  private static install(file: string): Database {
    return NoteIndex.madeAside(file, (temp) => {
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
  private static replace(file: string): Database {
    return NoteIndex.madeAside(file, (temp) => {
      // An old file's write-ahead log must not be replayed into the new one.
      for (const side of ["-wal", "-shm"]) rmSync(`${file}${side}`, { force: true });
      renameSync(temp, file);
    });
  }

  /** A fresh index made in a temporary file, put in place at `file` by `place`, then opened there. */
  private static madeAside(file: string, place: (temp: string) => void): Database {
    const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
    try {
      NoteIndex.fresh(temp).close();
      place(temp);
    } finally {
      rmSync(temp, { force: true });
    }
    const db = new Database(file, { strict: true });
    db.run("PRAGMA busy_timeout = 5000");
    return db;
  }

  private static fresh(file: string): Database {
    const db = new Database(file, { create: true, strict: true });
    db.run("PRAGMA busy_timeout = 5000");
    // WAL is recorded in the file's header, so every later open of the renamed file uses it.
    if (file !== ":memory:") db.run("PRAGMA journal_mode = WAL");
    db.transaction(() => {
      for (const s of SCHEMA) db.run(s);
      db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('format', ?)").run(FORMAT);
    })();
    return db;
  }

  /** Re-reads the note files that changed since they were indexed, and forgets those that are gone. */
  private refresh(log: Logger): void {
    const dir = join(this.root, NOTES_DIR);
    const known = new Map(
      (this.db.query("SELECT n, id, size, mtime_ns, ino, read_ns FROM files").all() as { n: number; id: string; size: number; mtime_ns: string; ino: string; read_ns: string }[]).map((r) => [r.id, r]),
    );
    const seen = new Set<string>();
    const changed: { id: string; size: number; mtimeNs: bigint; ino: bigint }[] = [];
    const top = lstatSync(dir, { throwIfNoEntry: false });
    if (top?.isDirectory())
      for (const name of readdirSync(dir)) {
        if (!name.endsWith(".md")) continue;
        const id = name.slice(0, -3);
        if (!NOTE_ID.test(id)) continue;
        const st = lstatSync(join(dir, name), { bigint: true, throwIfNoEntry: false });
        if (!st) continue;
        seen.add(id);
        const row = known.get(id);
        const racy = row !== undefined && st.mtimeNs + RACY_NS >= BigInt(row.read_ns);
        if (!row || racy || row.size !== Number(st.size) || row.mtime_ns !== String(st.mtimeNs) || row.ino !== String(st.ino)) changed.push({ id, size: Number(st.size), mtimeNs: st.mtimeNs, ino: st.ino });
      }
    const gone = [...known.keys()].filter((id) => !seen.has(id));
    if (changed.length === 0 && gone.length === 0) return;
    const current = this.db.query("SELECT n FROM files WHERE id = ?");
    const insert = this.db.query(
      "INSERT INTO files (id, size, mtime_ns, ino, read_ns, title, tags, created, updated, source, bytes, blob, body, unreadable) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING n",
    );
    const unword = this.db.query("DELETE FROM words WHERE rowid = ?");
    const word = this.db.query("INSERT INTO words (rowid, title, tags, body) VALUES (?, ?, ?, ?)");
    const forget = this.db.query("DELETE FROM files WHERE n = ?");
    /** Drops a note's row and words as they are now: another process may have re-indexed it since it was looked at. */
    const drop = (id: string) => {
      const row = current.get(id) as { n: number } | null;
      if (!row) return;
      forget.run(row.n);
      unword.run(row.n);
    };
    // Stamped before any file is read: a write after this instant is racily clean, and read again next time.
    const readNs = String(BigInt(Date.now()) * 1_000_000n);
    // IMMEDIATE: concurrent calls refreshing one index take turns instead of colliding.
    this.db.transaction(() => {
      for (const id of gone) drop(id);
      for (const [done, f] of changed.entries()) {
        log.progress?.("indexed notes", done + 1, changed.length);
        drop(f.id);
        const stat = [f.id, f.size, String(f.mtimeNs), String(f.ino), readNs] as const;
        let note: Note;
        try {
          const bytes = readNoteFile(this.root, f.id);
          if (!bytes) continue; // gone since it was listed
          note = parseNote(f.id, bytes);
        } catch (e) {
          insert.get(...stat, null, null, null, null, null, null, null, null, (e as Error).message);
          continue;
        }
        const { n } = insert.get(...stat, note.title, JSON.stringify(note.tags), note.created, note.updated, note.source, note.bytes, note.blob, note.body, null) as { n: number };
        word.run(n, note.title, note.tags.join(" "), note.body);
      }
    }).immediate();
  }

  /** Every readable note, by id; its body only when asked for. */
  notes(opts: { body: boolean }): IndexedNote[] {
    const rows = this.db.query(`SELECT id, title, tags, created, updated, source, bytes, blob${opts.body ? ", body" : ""} FROM files WHERE unreadable IS NULL ORDER BY id`).all() as Record<string, unknown>[];
    return rows.map(noteOfRow);
  }

  /** These notes, with their bodies, by id. */
  byIds(ids: readonly string[]): Map<string, IndexedNote> {
    const q = this.db.query("SELECT id, title, tags, created, updated, source, bytes, blob, body FROM files WHERE id = ? AND unreadable IS NULL");
    const out = new Map<string, IndexedNote>();
    for (const id of ids) {
      const r = q.get(id) as Record<string, unknown> | null;
      if (r) out.set(id, noteOfRow(r));
    }
    return out;
  }

  /** The notes that cannot be read, with why. */
  unreadable(): { id: string; reason: string }[] {
    return this.db.query("SELECT id, unreadable AS reason FROM files WHERE unreadable IS NOT NULL ORDER BY id").all() as { id: string; reason: string }[];
  }

  /**
   * Ranked full-text search: every word of the query as a prefix, any of them
   * matching (OR), ranked by BM25 with a title match weighing 3, tags 2, body 1.
   */
  search(query: string): SearchHit[] {
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    const match = terms.map((t) => `"${t}"*`).join(" OR ");
    const rows = this.db.query("SELECT f.id AS id, f.tags AS tags, bm25(words, 3.0, 2.0, 1.0) AS rank FROM words JOIN files f ON f.n = words.rowid WHERE words MATCH ? ORDER BY rank, f.id").all(match) as { id: string; tags: string; rank: number }[];
    // FTS5 gives BM25 as a negative number, and small on a small corpus: kept to six significant digits.
    return rows.map((r) => ({ id: r.id, score: Number((-r.rank).toPrecision(6)), tags: JSON.parse(r.tags) as string[] }));
  }

  close(): void {
    this.db.close();
  }
}

/** The words of a query as FTS5 sees them (letters and digits), lower-cased, each once. */
export function queryTerms(query: string): string[] {
  return [...new Set((query.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => t.length > 0))];
}
