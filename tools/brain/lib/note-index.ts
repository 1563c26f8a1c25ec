/**
 * brain's persisted index: every note's fields and an SQLite FTS5 table of
 * its words, in one file inside the repository's git directory
 * (`.git/brain/index-<root hash>.sqlite`: not in the work tree, not in HOME).
 *
 * It is never out of step. It records the commit it reflects; a note whose
 * row may differ from that commit's (read from an uncommitted file, or deleted
 * without a commit) is "pending". A call is told which notes may have changed
 * — by git (the notes two commits disagree on, and the tracked ones git
 * status lists) and the notes folder (names it has not seen), or, with no git
 * view, every file — and checks each of them, and every pending one, against
 * its file's size, mtime and ctime (ns) and inode, as git's own index does.
 * It re-reads only the files that differ, forgets those that are gone, and
 * lets a note stop pending only when git says its file is clean, the file is
 * the one that was read, and the note is in the indexed commit's tree (an
 * untracked note never is: index-plan.ts). A file changed within the
 * clock's granularity of being read is "racily clean" and read again, as git
 * does. A file that is not an SQLite index of this format is rebuilt, with a
 * warning, never trusted.
 */
import type { Database } from "bun:sqlite";
import type { CutPage } from "agent-cli-kit";
import { join } from "node:path";
import { openIndexFile, replaceIndexFile } from "./index-file.ts";
import { queryTerms } from "./query-terms.ts";
import { type Change, indexedHead, planRefresh, type RefreshPlan } from "./index-plan.ts";
import type { IndexedNote, Logger, NoteSummary, SearchHit, Window } from "./index-types.ts";
import { type Note, parseNote, readNoteFile } from "./notes.ts";

export type { IndexedNote, NoteSummary, SearchHit, Window } from "./index-types.ts";

/** A files row as a note: its tags are kept as JSON. */
const noteOfRow = <T>(r: Record<string, unknown>): T => ({ ...r, tags: JSON.parse(String(r.tags)) as string[] }) as T;
/** SQL that keeps only notes with every one of `tags`, one `?` per tag. */
const withTags = (tags: readonly string[]): string =>
  tags.map(() => " AND f.n IN (SELECT n FROM note_tags WHERE tag = ?)").join("");

export class NoteIndex {
  /** Answers already computed, until the index changes: a query asked while git status ran is not asked twice. */
  private readonly memo = new Map<string, unknown>();
  /** The database's data_version when the remembered answers were computed: another process's commit changes it. */
  private memoVersion = -1;

  private constructor(
    private db: Database,
    private readonly root: string,
    private readonly file: string | null,
    private readonly log: Logger,
    /** The command's clock (ms): in a release binary the system's, the one that stamps the files it is compared with. */
    private readonly now: () => number,
  ) {}

  /** The index of `root`'s notes kept in `gitDir` (not yet brought up to date: see refresh); without one, in memory. */
  static open(root: string, log: Logger, gitDir: string | null, now: () => number): NoteIndex {
    const file = gitDir ? join(gitDir, "brain", `index-${Bun.hash(root).toString(36)}.sqlite`) : null;
    return new NoteIndex(openIndexFile(file, log), root, file, log, now);
  }

  /** Replaces a damaged index file with an empty one (a call at the same moment opens the old file or the new, whole); false for an index in memory. */
  rebuild(reason: string): boolean {
    if (!this.file) return false;
    this.log.warn(`the note index ${this.file} is damaged (${reason}): rebuilding it`);
    this.db.close();
    this.db = replaceIndexFile(this.file);
    this.memo.clear();
    return true;
  }

  /** How many notes the index holds. */
  size(): number {
    return (this.db.query("SELECT count(*) AS n FROM files").get() as { n: number }).n;
  }

  /** The commit the index reflects; null when none is recorded. */
  head(): string | null {
    return indexedHead(this.db);
  }

  /**
   * Brings the index up to date. `seen` is a view taken without the write
   * lock (null: known to be out of date): when it shows nothing to do,
   * nothing is written. Otherwise the plan
   * is made again under the lock from `locked()` (a view taken then), so two
   * calls never write from views older than what the other wrote.
   * Answers remembered before are forgotten if the index changed since they
   * were computed, here or in another process.
   */
  refresh(seen: Change | null, locked: () => Change): void {
    // IMMEDIATE: concurrent calls refreshing one index take turns instead of colliding.
    const changed =
      !(seen && planRefresh(this.db, this.root, seen, this.nowNs()).empty) &&
      this.db.transaction(() => this.apply(planRefresh(this.db, this.root, locked(), this.nowNs()))).immediate();
    if (changed || this.dataVersion() !== this.memoVersion) this.memo.clear();
  }

  private nowNs(): bigint {
    return BigInt(Math.floor(this.now())) * 1_000_000n;
  }

  private dataVersion(): number {
    return (this.db.query("PRAGMA data_version").get() as { data_version: number }).data_version;
  }

  /** The commit the index now reflects, and the notes of its tree (none without a commit). */
  private recordCommit(plan: RefreshPlan): void {
    if (plan.head === null) this.db.run("DELETE FROM meta WHERE key = 'head'");
    else this.db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('head', ?)").run(plan.head);
    const c = plan.head === null ? { reset: new Set<string>() } : plan.committed;
    if (!c) return;
    const add = this.db.query("INSERT OR IGNORE INTO committed (id) VALUES (?)");
    const remove = this.db.query("DELETE FROM committed WHERE id = ?");
    if ("reset" in c) this.db.run("DELETE FROM committed");
    for (const id of "reset" in c ? c.reset : c.added) add.run(id);
    if (!("reset" in c)) for (const id of c.deleted) remove.run(id);
  }

  private apply(plan: RefreshPlan): boolean {
    const current = this.db.query("SELECT n, tags FROM files WHERE id = ?");
    const insert = this.db.query(
      "INSERT INTO files (id, size, mtime_ns, ctime_ns, ino, read_ns, title, tags, created, updated, source, bytes, blob, unreadable) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING n",
    );
    const fold = this.db.query("INSERT INTO folded (n, title, body) VALUES (?, ?, ?)");
    const unfold = this.db.query("DELETE FROM folded WHERE n = ?");
    const unword = this.db.query("DELETE FROM words WHERE rowid = ?");
    const word = this.db.query("INSERT INTO words (rowid, title, tags, body) VALUES (?, ?, ?, ?)");
    const forget = this.db.query("DELETE FROM files WHERE n = ?");
    const tag = this.db.query("INSERT OR IGNORE INTO note_tags (tag, n) VALUES (?, ?)");
    const untag = this.db.query("DELETE FROM note_tags WHERE tag = ? AND n = ?");
    const drop = (id: string) => {
      const row = current.get(id) as { n: number; tags: string | null } | null;
      if (!row) return;
      forget.run(row.n);
      for (const t of row.tags ? (JSON.parse(row.tags) as string[]) : []) untag.run(t, row.n);
      unword.run(row.n);
      unfold.run(row.n);
    };
    // Stamped before any file is read: a write after this instant is racily clean, and read again next time.
    const readNs = String(this.nowNs());
    for (const id of plan.gone) drop(id);
    for (const [done, f] of plan.reread.entries()) {
      this.log.progress?.("indexed notes", done + 1, plan.reread.length);
      drop(f.id);
      const stat = [f.id, f.size, f.mtimeNs, f.ctimeNs, f.ino, readNs] as const;
      let note: Note;
      try {
        const bytes = readNoteFile(this.root, f.id);
        if (!bytes) continue; // gone since it was looked at
        note = parseNote(f.id, bytes);
      } catch (e) {
        insert.get(...stat, null, null, null, null, null, null, null, (e as Error).message);
        continue;
      }
      const { title, tags, created, updated, source, bytes, blob, body } = note;
      const { n } = insert.get(...stat, title, JSON.stringify(tags), created, updated, source, bytes, blob, null) as {
        n: number;
      };
      for (const t of tags) tag.run(t, n);
      word.run(n, title, tags.join(" "), body);
      fold.run(n, title.toLowerCase(), body.toLowerCase());
    }
    const pend = this.db.query("INSERT OR IGNORE INTO pending (id) VALUES (?)");
    const unpend = this.db.query("DELETE FROM pending WHERE id = ?");
    for (const id of plan.pend) pend.run(id);
    for (const id of plan.unpend) unpend.run(id);
    this.recordCommit(plan);
    if (plan.folder) this.db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('folder', ?)").run(plan.folder);
    return plan.gone.length > 0 || plan.reread.length > 0;
  }

  /** An answer, computed in one read transaction (a consistent snapshot, whatever other processes commit meanwhile), and remembered. */
  private memoized<T>(key: unknown[], compute: () => T): T {
    const k = JSON.stringify(key);
    if (!this.memo.has(k)) {
      // Read before the snapshot begins: a commit in between makes the answer newer than its version, never older.
      if (this.memo.size === 0) this.memoVersion = this.dataVersion();
      this.memo.set(k, this.db.transaction(compute)());
    }
    return this.memo.get(k) as T;
  }

  /** A page of the readable notes with every one of `tags` whose title or body contains `text` (case-folded), by id. */
  list(tags: readonly string[], text: string | undefined, window: Window): CutPage<NoteSummary> {
    return this.memoized(["list", tags, text, window], () => {
      const folded = text?.toLowerCase();
      const where = `FROM files f${folded === undefined ? "" : " JOIN folded l ON l.n = f.n"} WHERE f.unreadable IS NULL${withTags(tags)}${folded === undefined ? "" : " AND (instr(l.title, ?) > 0 OR instr(l.body, ?) > 0)"}`;
      const args = [...tags, ...(folded === undefined ? [] : [folded, folded])];
      const { total } = this.db.query(`SELECT count(*) AS total ${where}`).get(...args) as { total: number };
      const rows = this.db
        .query(
          `SELECT f.id, f.title, f.tags, f.created, f.updated, f.source, f.bytes ${where} ORDER BY f.id LIMIT ? OFFSET ?`,
        )
        .all(...args, window.limit, window.offset) as Record<string, unknown>[];
      return { total, items: rows.map((r) => noteOfRow<NoteSummary>(r)) };
    });
  }

  /** The notes that cannot be read, with why. */
  unreadable(): { id: string; reason: string }[] {
    return this.db
      .query("SELECT id, unreadable AS reason FROM files WHERE unreadable IS NOT NULL ORDER BY id")
      .all() as { id: string; reason: string }[];
  }

  /**
   * A page of ranked full-text search over notes with every one of `tags`:
   * every word of the query as a prefix, any of them matching (OR), ranked by
   * BM25 with a title match weighing 3, tags 2, body 1; equal ranks by id.
   */
  search(query: string, tags: readonly string[], window: Window): CutPage<SearchHit> {
    return this.memoized(["search", query, tags, window], () => {
      const terms = queryTerms(query);
      if (terms.length === 0) return { total: 0, items: [] };
      const match = terms.map((t) => `"${t}"*`).join(" OR ");
      const from = `FROM words JOIN files f ON f.n = words.rowid WHERE words MATCH ?${withTags(tags)}`;
      const { total } = this.db.query(`SELECT count(*) AS total ${from}`).get(match, ...tags) as { total: number };
      const rows = this.db
        .query(`SELECT f.n, bm25(words, 3.0, 2.0, 1.0) AS rank ${from} ORDER BY rank, f.id LIMIT ? OFFSET ?`)
        .values(match, ...tags, window.limit, window.offset) as [number, number][];
      // In the same snapshot as the ranking: the page's notes are the ones ranked, whatever another process writes meanwhile.
      const note = this.db.query(
        "SELECT f.id, f.title, f.tags, f.created, f.updated, f.source, f.bytes, f.blob, w.body FROM files f JOIN words w ON w.rowid = f.n WHERE f.n = ?",
      );
      // FTS5 gives BM25 as a negative number, and small on a small corpus: kept to six significant digits.
      return {
        total,
        items: rows.map(([n, rank]) => ({
          note: noteOfRow<IndexedNote>(note.get(n) as Record<string, unknown>),
          score: Number((-rank).toPrecision(6)),
        })),
      };
    });
  }

  close(): void {
    this.db.close();
  }
}
