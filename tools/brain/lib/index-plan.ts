/**
 * Which rows of the note index a call must touch, from what may have changed:
 * files to read again, rows whose file is gone, the notes to keep checking on
 * every call, and the commit recorded. Made without writing, so that a call with
 * nothing to do writes nothing and takes no lock.
 */
import type { Database } from "bun:sqlite";
import { lstatSync } from "node:fs";
import { NOTES_DIR, noteIdsIn } from "./notes.ts";

/** What may have changed since the index was last brought up to date, and the commit it then reflects. */
export interface Change {
  /** The commit HEAD points at; null when there is none or no git view. */
  readonly head: string | null;
  /** Notes whose file may differ from the index's copy, besides the pending ones; "all": every file and every row. */
  readonly candidates: ReadonlySet<string> | "all";
  /** Notes whose file differs from HEAD's (they stay pending); "all" when git cannot say. */
  readonly dirty: ReadonlySet<string> | "all";
}

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

export const indexedHead = (db: Database): string | null => (db.query("SELECT value FROM meta WHERE key = 'head'").get() as { value: string } | null)?.value ?? null;

export function planRefresh(db: Database, root: string, change: Change): RefreshPlan {
  const dir = `${root}/${NOTES_DIR}`;
  const pending = new Set(db.query("SELECT id FROM pending").values().map((r) => String(r[0])));
  const rows = rowsToCheck(db, dir, change, pending);
  const folder = lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
  const dirty = (id: string) => change.dirty === "all" || change.dirty.has(id);
  const plan = { head: change.head, gone: [] as string[], reread: [] as FileSignature[], pend: [] as string[], unpend: [] as string[] };
  for (const [id, row] of rows) {
    const st = folder ? lstatSync(`${dir}/${id}.md`, { bigint: true, throwIfNoEntry: false }) : undefined;
    let keep: boolean;
    if (!st) {
      if (row) plan.gone.push(id);
      // A note deleted but not committed is checked again: git may bring it back (checkout, stash pop) with no other sign.
      keep = dirty(id);
    } else {
      const sig = { id, size: Number(st.size), mtimeNs: String(st.mtimeNs), ctimeNs: String(st.ctimeNs), ino: String(st.ino) };
      const same = row && st.mtimeNs + RACY_NS < BigInt(row.read_ns) && row.size === sig.size && row.mtime_ns === sig.mtimeNs && row.ctime_ns === sig.ctimeNs && row.ino === sig.ino;
      if (!same) plan.reread.push(sig);
      // What was read now matches the commit only once a later call finds the file clean and unchanged.
      keep = !same || dirty(id);
    }
    // Without a git view every file is checked on every call anyway: nothing needs to pend.
    if (change.dirty === "all") keep = false;
    if (keep && !pending.has(id)) plan.pend.push(id);
    if (!keep && pending.has(id)) plan.unpend.push(id);
  }
  const empty = plan.gone.length + plan.reread.length + plan.pend.length + plan.unpend.length === 0 && plan.head === indexedHead(db);
  return { empty, ...plan };
}

/** Every note to check, with its row if it has one: the candidates and the pending; every file and row when all are. */
function rowsToCheck(db: Database, dir: string, change: Change, pending: ReadonlySet<string>): Map<string, Row | undefined> {
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
  return rows;
}
