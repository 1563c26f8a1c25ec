/**
 * One note change as one commit, made so that a kill at any instant leaves
 * either no change or the whole commit. The commit is built with git's
 * plumbing against a private index (blob → tree → commit object), none of
 * which touches the branch, the work tree or the real index; the branch
 * then moves in one compare-and-swap (`update-ref NEW OLD`). Only after that
 * are the work tree and index brought up to the new HEAD, a step that
 * `finishOwnCommit` completes on the next apply if a crash cut it short.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { KitError } from "agent-cli-kit";
import { blobHash, firstLines, type Repo } from "./repo.ts";

export const TRAILER = "Idempotency-Key";
const ZERO = "0000000000000000000000000000000000000000";

export interface NoteChange {
  /** The file's path in the repository. */
  readonly path: string;
  /** The new content, or null to delete the file. */
  readonly content: Uint8Array | null;
  /** The blob HEAD must hold at `path` (git:<sha1>), or null when it must hold none; the change is refused otherwise. */
  readonly expect: string | null;
  readonly subject: string;
  readonly body: string;
  readonly trailers: Readonly<Record<string, string>>;
}

const headOf = (repo: Repo): string | null => repo.git(["rev-parse", "--verify", "-q", "HEAD^{commit}"], { allowFail: true }).stdout.trim() || null;

const blobAt = (repo: Repo, commit: string | null, path: string): string | null =>
  commit ? repo.git(["rev-parse", "--verify", "-q", `${commit}:${path}`], { allowFail: true }).stdout.trim() || null : null;

const identity = (repo: Repo): string[] => (repo.git(["config", "user.email"], { allowFail: true }).code === 0 ? [] : ["-c", "user.name=brain", "-c", "user.email=brain@localhost"]);

/**
 * Makes the commit and moves the branch to it; `beforeRefMove` runs right
 * before the one irreversible step (the apply's fence). Returns the commit id.
 */
export async function commitChange(repo: Repo, change: NoteChange, beforeRefMove: () => Promise<void>): Promise<string> {
  const head = headOf(repo);
  const found = blobAt(repo, head, change.path);
  const expected = change.expect?.replace(/^git:/, "") ?? null;
  if (found !== expected)
    throw new KitError("PRECONDITION_FAILED", `${change.path} is ${found ? `at blob ${found.slice(0, 12)}` : "absent"} in HEAD, not ${expected ? `at blob ${expected.slice(0, 12)}` : "absent"} as planned`);

  const gitDir = repo.git(["rev-parse", "--absolute-git-dir"]).stdout.trim();
  const index = join(gitDir, `brain-index-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  const withIndex = { env: { GIT_INDEX_FILE: index } };
  try {
    repo.git(head ? ["read-tree", head] : ["read-tree", "--empty"], withIndex);
    if (change.content) {
      const blob = repo.git(["hash-object", "-w", "--stdin"], { input: change.content }).stdout.trim();
      repo.git(["update-index", "--add", "--cacheinfo", `100644,${blob},${change.path}`], withIndex);
    } else repo.git(["update-index", "--force-remove", "--", change.path], withIndex);
    const tree = repo.git(["write-tree"], withIndex).stdout.trim();
    const message = `${change.subject}\n\n${change.body}\n\n${Object.entries(change.trailers)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\n")}\n`;
    const commit = repo.git([...identity(repo), "commit-tree", tree, ...(head ? ["-p", head] : []), "-F", "-"], { input: message }).stdout.trim();
    await beforeRefMove();
    // The commit point: the branch moves only if nobody moved it since we read it.
    const moved = repo.git(["update-ref", "-m", change.subject, "HEAD", commit, head ?? ZERO], { allowFail: true });
    if (moved.code !== 0) throw new KitError("UPSTREAM_ERROR", `the branch moved while the commit was being made; nothing was committed`, { detail: { stderr: firstLines(moved.stderr) } });
    syncToHead(repo, [change.path]);
    return commit;
  } finally {
    rmSync(index, { force: true });
  }
}

/** Brings the real index and the work tree at `paths` up to HEAD. */
function syncToHead(repo: Repo, paths: readonly string[]): void {
  repo.git(["reset", "-q", "HEAD", "--", ...paths]);
  for (const path of paths) {
    if (blobAt(repo, "HEAD", path)) repo.git(["checkout-index", "-f", "-q", "--", path]);
    else rmSync(join(repo.root, path), { force: true });
  }
}

/**
 * Finishes a commit of ours whose branch move landed but whose work-tree
 * sync a crash cut short: HEAD carries our trailer, and every uncommitted
 * difference is a path that commit touched, holding in the index and in the
 * work tree either the version before the commit or the one after it (the
 * sync runs index first, then file). Anything else is a person's change,
 * left alone.
 */
export function finishOwnCommit(repo: Repo): boolean {
  const status = repo.git(["status", "--porcelain", "-z", "--untracked-files=all"]).stdout;
  const head = headOf(repo);
  if (!status || !head) return false;
  if (!repo.git(["log", "-1", `--format=%(trailers:key=${TRAILER},valueonly)`, head]).stdout.trim()) return false;
  const dirty = [...new Set(status.split("\0").filter(Boolean).map((l) => l.slice(3)))];
  const parent = repo.git(["rev-parse", "--verify", "-q", `${head}^`], { allowFail: true }).stdout.trim() || null;
  const touched = new Set(repo.git(["diff-tree", "--no-commit-id", "--name-only", "-r", "--root", "-z", head]).stdout.split("\0").filter(Boolean));
  for (const path of dirty) {
    const ours = [blobAt(repo, parent, path), blobAt(repo, head, path)];
    const staged = repo.git(["ls-files", "-s", "-z", "--", path]).stdout.split(" ")[1] ?? null;
    if (!touched.has(path) || !ours.includes(staged) || !ours.includes(workTreeBlob(repo, path))) return false;
  }
  syncToHead(repo, dirty);
  return true;
}

/** The blob id of the work tree's file at `path`, or null when there is none. */
function workTreeBlob(repo: Repo, path: string): string | null {
  const full = join(repo.root, path);
  return existsSync(full) ? blobHash(readFileSync(full)).replace(/^git:/, "") : null;
}
