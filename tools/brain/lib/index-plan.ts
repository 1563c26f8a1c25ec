/**
 * Which rows of the note index a call must touch, from what may have changed:
 * files to read again, rows whose file is gone, the notes to keep checking on
 * every call, and the commit recorded. Made without writing, so that a call with
 * nothing to do writes nothing and takes no lock.
 */
import type { Database } from "bun:sqlite";
import { lstatSync, type BigIntStats } from "node:fs";
import { noteIdsIn, notesFolder } from "./notes.ts";

/** What may have changed since the index was last brought up to date, and the commit it then reflects. */
export interface Change {
  /** The commit HEAD points at (or "(initial)" before the first commit); null without a git view. */
  readonly head: string | null;
  /** Notes whose file may differ from the index's copy, besides the pending ones and new files; "all": every file and every row. */
  readonly candidates: ReadonlySet<string> | "all";
  /** Tracked notes whose file differs from HEAD's (they stay pending); "all" when git cannot say. */
  readonly dirty: ReadonlySet<string> | "all";
  /** How the notes of HEAD's tree differ from the index's (those of its head); absent when its head is HEAD. */
  readonly committed?: Committed;
}

/** The notes of HEAD's tree: every one (`reset`), or what HEAD adds and deletes against the index's head. */
export type Committed =
  | { readonly reset: ReadonlySet<string> }
  | { readonly added: ReadonlySet<string>; readonly deleted: ReadonlySet<string> };

/** No git view: every file and every row is checked by its file's signature. */
export const EVERY_FILE: Change = { head: null, candidates: "all", dirty: "all" };

export interface FileSignature {
  readonly id: string;
  readonly size: number;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
  readonly ino: string;
}

export interface RefreshPlan {
  readonly empty: boolean;
  readonly head: string | null;
  readonly gone: string[];
  readonly reread: FileSignature[];
  /** Notes to check again on every call (their file may differ from the commit's, or be missing), and those no longer. */
  readonly pend: string[];
  readonly unpend: string[];
  readonly committed: Committed | null;
  /** The notes folder as its names were read (see newFiles), to record; null: as recorded. */
  readonly folder: string | null;
}

/** Changes closer than this to the moment a file was read may share its mtime: read such a file again. */
const RACY_NS = 50_000_000n;

interface Row {
  id: string;
  size: number;
  mtime_ns: string;
  ctime_ns: string;
  ino: string;
  read_ns: string;
}

const ROW = "id, size, mtime_ns, ctime_ns, ino, read_ns";

export const indexedHead = (db: Database): string | null =>
  (db.query("SELECT value FROM meta WHERE key = 'head'").get() as { value: string } | null)?.value ?? null;

/** `nowNs`: the time of this call, stamped on what it reads (ns since the epoch). */
export function planRefresh(db: Database, root: string, change: Change, nowNs: bigint): RefreshPlan {
  const dir = notesFolder(root);
  const pending = new Set(
    db
      .query("SELECT id FROM pending")
      .values()
      .map((r) => String(r[0])),
  );
  const folderStat = lstatSync(dir, { bigint: true, throwIfNoEntry: false });
  const listing = change.dirty === "all" ? null : newFiles(db, dir, folderStat, change.candidates === "all", nowNs);
  const rows = rowsToCheck(db, dir, change, pending, listing?.ids ?? []);
  const folder = folderStat?.isDirectory() ?? false;
  const listed = (id: string) => change.dirty === "all" || change.dirty.has(id);
  const committed = committedIn(db, change.committed);
  const plan = {
    head: change.head,
    gone: [] as string[],
    reread: [] as FileSignature[],
    pend: [] as string[],
    unpend: [] as string[],
  };
  for (const [id, row] of rows) {
    const st = folder ? lstatSync(`${dir}/${id}.md`, { bigint: true, throwIfNoEntry: false }) : undefined;
    let keep: boolean;
    if (!st) {
      if (row) plan.gone.push(id);
      // A note deleted but not committed is checked again: git may bring it back (checkout, stash pop) with no other sign.
      keep = listed(id);
    } else {
      const sig = {
        id,
        size: Number(st.size),
        mtimeNs: String(st.mtimeNs),
        ctimeNs: String(st.ctimeNs),
        ino: String(st.ino),
      };
      const same =
        row &&
        st.mtimeNs + RACY_NS < BigInt(row.read_ns) &&
        row.size === sig.size &&
        row.mtime_ns === sig.mtimeNs &&
        row.ctime_ns === sig.ctimeNs &&
        row.ino === sig.ino;
      if (!same) plan.reread.push(sig);
      // What was read now matches the commit only once a later call finds the file clean and unchanged. A file
      // outside HEAD's tree (untracked, ignored) is never clean: git status is not asked about such files.
      keep = !same || listed(id) || !committed(id);
    }
    // Without a git view every file is checked on every call anyway: nothing needs to pend.
    if (change.dirty === "all") keep = false;
    if (keep && !pending.has(id)) plan.pend.push(id);
    if (!keep && pending.has(id)) plan.unpend.push(id);
  }
  const moved = plan.head !== indexedHead(db) || change.committed !== undefined || listing?.record !== undefined;
  const empty = plan.gone.length + plan.reread.length + plan.pend.length + plan.unpend.length === 0 && !moved;
  return { empty, ...plan, committed: change.committed ?? null, folder: listing?.record ?? null };
}

/**
 * Notes the index has not seen, from the folder's names: read only when the
 * folder changed since they were last read (an entry added, removed or
 * renamed changes a folder's mtime), or changed too close to that moment to
 * tell. null: unchanged, nothing new. `all`: every file is read anyway.
 */
function newFiles(
  db: Database,
  dir: string,
  st: BigIntStats | undefined,
  all: boolean,
  nowNs: bigint,
): { record?: string; ids: string[] } | null {
  const sig = st ? `${st.mtimeNs}:${st.ctimeNs}:${st.ino}` : "none";
  const recorded = (
    db.query("SELECT value FROM meta WHERE key = 'folder'").get() as { value: string } | null
  )?.value.split("/");
  const racy = (ns: bigint) => ns + RACY_NS >= BigInt(recorded![1]!);
  if (recorded?.[0] === sig && !(st && (racy(st.mtimeNs) || racy(st.ctimeNs)))) return null;
  // Stamped before the names are read: a change after this instant is seen by the next call.
  const record = `${sig}/${nowNs}`;
  if (all || !st?.isDirectory()) return { record, ids: [] };
  const known = new Set(
    db
      .query("SELECT id FROM files")
      .values()
      .map((r) => String(r[0])),
  );
  return { record, ids: noteIdsIn(dir).filter((id) => !known.has(id)) };
}

/** Whether a note is in HEAD's tree: as `change` says, else as the index holds it for its head. */
function committedIn(db: Database, change: Committed | undefined): (id: string) => boolean {
  const held = db.query("SELECT 1 FROM committed WHERE id = ?");
  const inIndex = (id: string) => held.get(id) !== null;
  if (!change) return inIndex;
  if ("reset" in change) return (id) => change.reset.has(id);
  return (id) => change.added.has(id) || (!change.deleted.has(id) && inIndex(id));
}

/** Every note to check, with its row if it has one: the candidates and the pending; every file and row when all are. */
function rowsToCheck(
  db: Database,
  dir: string,
  change: Change,
  pending: ReadonlySet<string>,
  fresh: readonly string[],
): Map<string, Row | undefined> {
  const rows = new Map<string, Row | undefined>();
  const one = db.query(`SELECT ${ROW} FROM files WHERE id = ?`);
  const add = (id: string) => {
    if (!rows.has(id)) rows.set(id, (one.get(id) as Row | null) ?? undefined);
  };
  if (change.candidates === "all") {
    for (const r of db.query(`SELECT ${ROW} FROM files`).all() as Row[]) rows.set(r.id, r);
    for (const id of noteIdsIn(dir)) if (!rows.has(id)) rows.set(id, undefined);
  } else for (const id of change.candidates) add(id);
  if (change.dirty !== "all") for (const id of change.dirty) add(id);
  for (const id of pending) add(id);
  for (const id of fresh) rows.set(id, undefined);
  return rows;
}
