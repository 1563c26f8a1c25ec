/**
 * What git knows about the notes folder, from one `git status` (git keeps its
 * own stat cache of every tracked file, and lstats them faster than a script
 * can): the commit HEAD points at, and the tracked notes whose files differ
 * from it — modified, staged, added, renamed or deleted. Untracked and
 * ignored notes are not asked for (looking for them is a quarter of the
 * status's time): the index finds new files from the notes folder itself
 * (index-plan.ts). And which notes two commits disagree on, from one
 * `git diff-tree`, or which notes a commit holds, from one `git ls-tree`.
 *
 * `--no-optional-locks`: a read must never take git's index lock, or it could
 * make the user's own `git commit` fail at the same moment.
 */
import { NOTE_ID, NOTES_DIR } from "./notes.ts";
import type { Repo } from "./repo.ts";

/** What git status says HEAD is on a branch with no commit yet. */
export const NO_COMMIT = "(initial)";

export interface WorkTreeView {
  /** The commit HEAD points at, or NO_COMMIT; null when git status did not say. */
  readonly head: string | null;
  /** The tracked notes whose file differs from HEAD's. */
  readonly dirty: ReadonlySet<string>;
}

/** Which notes a commit adds or deletes against another, and every note the two disagree on. */
export interface CommitDiff {
  readonly changed: Set<string>;
  readonly added: ReadonlySet<string>;
  readonly deleted: ReadonlySet<string>;
}

const STATUS = [
  "--no-optional-locks",
  "status",
  "--porcelain=v2",
  "-z",
  "--branch",
  "--untracked-files=no",
  "--",
  `${NOTES_DIR}/`,
];

/** `git status` of the notes folder, started now and read later: it runs while this process does other work. */
export function startStatus(repo: Repo): Promise<WorkTreeView | null> {
  return repo.gitAsync(STATUS).then(
    (r) => (r.code === 0 ? parseStatus(r.stdout, repo.prefix) : null),
    () => null,
  );
}

/** `git status` of the notes folder, now; null when git cannot say (then every file is checked by its signature). */
export function statusNow(repo: Repo): WorkTreeView | null {
  try {
    const r = repo.git(STATUS, { allowFail: true });
    return r.code === 0 ? parseStatus(r.stdout, repo.prefix) : null;
  } catch {
    return null;
  }
}

/** The notes that differ between two commits; null when git cannot say (a commit gone after a rebase and a gc). */
export function notesBetween(repo: Repo, from: string, to: string): CommitDiff | null {
  const r = repo.git(["diff-tree", "-r", "-z", "--name-status", "--no-renames", from, to, "--", `${NOTES_DIR}/`], {
    allowFail: true,
  });
  if (r.code !== 0) return null;
  const diff = { changed: new Set<string>(), added: new Set<string>(), deleted: new Set<string>() };
  const fields = r.stdout.split("\0");
  // -z --name-status: a status letter, then its path, each ended by NUL.
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const path = fields[i + 1]!;
    addNote(diff.changed, path, repo.prefix);
    if (fields[i] === "A") addNote(diff.added, path, repo.prefix);
    if (fields[i] === "D") addNote(diff.deleted, path, repo.prefix);
  }
  return diff;
}

/** The notes in commit `head`'s tree; null when git cannot say. */
export function notesAt(repo: Repo, head: string): Set<string> | null {
  const r = repo.git(["ls-tree", "-r", "-z", "--name-only", "--full-name", head, "--", `${NOTES_DIR}/`], {
    allowFail: true,
  });
  if (r.code !== 0) return null;
  const ids = new Set<string>();
  for (const path of r.stdout.split("\0")) addNote(ids, path, repo.prefix);
  return ids;
}

/** Status lines (porcelain v2, -z): which fields come before the path, by the line's first character. */
const FIELDS_BEFORE_PATH: Record<string, number> = { "1": 8, "2": 9, u: 10 };

export function parseStatus(out: string, prefix: string): WorkTreeView {
  let head: string | null = null;
  const dirty = new Set<string>();
  const fields = out.split("\0");
  for (let i = 0; i < fields.length; i++) {
    const line = fields[i]!;
    if (line.startsWith("# branch.oid ")) {
      const oid = line.slice("# branch.oid ".length);
      head = oid;
      continue;
    }
    const before = FIELDS_BEFORE_PATH[line[0] ?? ""];
    if (before === undefined) continue;
    addNote(dirty, afterFields(line, before), prefix);
    // A rename or copy is followed by the path it came from.
    if (line[0] === "2") addNote(dirty, fields[++i] ?? "", prefix);
  }
  return { head, dirty };
}

/** The rest of `line` after `n` space-separated fields (a path may itself hold spaces). */
function afterFields(line: string, n: number): string {
  let at = 0;
  for (let k = 0; k < n && at >= 0; k++) at = line.indexOf(" ", at) + 1;
  return at > 0 ? line.slice(at) : "";
}

/** Adds the note id of `path` (relative to the top of the work tree) if it names a note of the repository at `prefix`. */
function addNote(ids: Set<string>, path: string, prefix: string): void {
  const folder = `${prefix}${NOTES_DIR}/`;
  if (!path.startsWith(folder) || !path.endsWith(".md")) return;
  const id = path.slice(folder.length, -3);
  if (NOTE_ID.test(id)) ids.add(id);
}
