/**
 * One note change as one commit, made so that a failure at any instant (a
 * kill, a full disk, a read-only mount) leaves either no change or the whole
 * commit. Everything that needs space is done first: the commit is built
 * with git's plumbing against a private index (blob → tree → commit object),
 * and the note's new file is written beside its place; none of it touches
 * the branch, the work tree or the real index. The branch then moves in one
 * compare-and-swap (`update-ref NEW OLD`), and the work tree follows by a
 * rename, which needs no space. The real index is brought up last; if that
 * fails, or a crash cuts it short, `finishOwnCommit` completes it on the
 * next write.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KitError } from "agent-cli-kit";
import { blobHash, firstLines, type Repo } from "./repo.ts";

export const TRAILER = "Idempotency-Key";
/** The plan an item's commit was applied from: with TRAILER, what marks a commit as one brain's apply made. */
export const PLAN_TRAILER = "Brain-Plan";
const ZERO = "0000000000000000000000000000000000000000";

export interface NoteChange {
  /** The file's path in the repository. */
  readonly path: string;
  /** The new content, or null to delete the file. */
  readonly content: Uint8Array | null;
  /** The blob HEAD must hold at `path` (git:<sha1>), or null when it must hold none; the change is refused otherwise. */
  readonly expect: string | null;
  readonly subject: string;
  /** Text the plan carries (an item's reason): anyone's words, kept out of the trailer block (commitMessage). */
  readonly body: string;
  readonly trailers: Readonly<Record<string, string>>;
}

/**
 * The commit message: the subject, the body with every line indented, then
 * the trailers as the last paragraph. Indented, no line of the body can be
 * read as a trailer, a comment, or the scissors line git ends a message at,
 * so the trailers git reads are ours whatever the body says.
 */
export function commitMessage(change: Pick<NoteChange, "subject" | "body" | "trailers">): string {
  const body = change.body
    .split(/\r\n|\r|\n/)
    .map((line) => (line.trim() ? `    ${line}` : ""))
    .join("\n")
    .replace(/^\n+|\n+$/g, "");
  const trailers = Object.entries(change.trailers).map(([k, v]) => `${k}: ${v}`);
  return `${[change.subject, ...(body ? [body] : []), trailers.join("\n")].join("\n\n")}\n`;
}

/** git reads trailers alike whatever the repository's configuration says. */
const TRAILER_CONFIG = ["-c", "core.commentChar=#", "-c", "trailer.separators=:"];

/** One commit's trailer `key`, as git parses the commit's own trailer block: its one value, or "" (none, or more than one). */
export function trailerOf(repo: Repo, commit: string, key: string): string {
  const values = repo
    .git([...TRAILER_CONFIG, "log", "-1", `--format=%(trailers:key=${key},valueonly,separator=%x00)`, commit])
    .stdout.trim()
    .split("\0");
  return values.length === 1 ? values[0]! : "";
}

/**
 * The commits on HEAD's branch that brain's apply made for the item of key
 * `key`, newest first: their own trailer block carries that key and a plan,
 * once each. Text elsewhere in a message (a reason) never counts.
 */
export function commitsOfItem(repo: Repo, key: string): string[] {
  const format = [TRAILER, PLAN_TRAILER].map((k) => `%(trailers:key=${k},valueonly,separator=%x00)`).join("%x09");
  const log = repo.git([...TRAILER_CONFIG, "log", "HEAD", "-F", `--grep=${key}`, `--format=%H%x09${format}`], {
    allowFail: true,
  });
  return log.stdout.split("\n").flatMap((line) => {
    const [commit, keys, plans] = line.split("\t");
    return commit && keys === key && plans && !plans.includes("\0") ? [commit] : [];
  });
}

/** The paths a commit changed. */
export const pathsOf = (repo: Repo, commit: string): string[] =>
  repo
    .git(["diff-tree", "--no-commit-id", "--name-only", "-r", "--root", "-z", commit])
    .stdout.split("\0")
    .filter(Boolean);

const headOf = (repo: Repo): string | null =>
  repo.git(["rev-parse", "--verify", "-q", "HEAD^{commit}"], { allowFail: true }).stdout.trim() || null;

const blobAt = (repo: Repo, commit: string | null, path: string): string | null =>
  commit
    ? repo.git(["rev-parse", "--verify", "-q", `${commit}:${path}`], { allowFail: true }).stdout.trim() || null
    : null;

const identity = (repo: Repo): string[] =>
  repo.git(["config", "user.email"], { allowFail: true }).code === 0
    ? []
    : ["-c", "user.name=brain", "-c", "user.email=brain@localhost"];

/**
 * Makes the commit and moves the branch to it; `beforeRefMove` runs right
 * before the one irreversible step (the apply's fence). Returns the commit id.
 */
export async function commitChange(
  repo: Repo,
  change: NoteChange,
  beforeRefMove: () => Promise<void>,
): Promise<string> {
  const head = headOf(repo);
  const found = blobAt(repo, head, change.path);
  const expected = change.expect?.replace(/^git:/, "") ?? null;
  if (found !== expected)
    throw new KitError(
      "PRECONDITION_FAILED",
      `${change.path} is ${found ? `at blob ${found.slice(0, 12)}` : "absent"} in HEAD, not ${expected ? `at blob ${expected.slice(0, 12)}` : "absent"} as planned`,
    );

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
    const message = commitMessage(change);
    const commit = repo
      .git([...identity(repo), "commit-tree", tree, ...(head ? ["-p", head] : []), "-F", "-"], { input: message })
      .stdout.trim();
    const staged = stageFile(repo, change);
    try {
      await beforeRefMove();
      // The commit point: the branch moves only if nobody moved it since we read it.
      const moved = repo.git(["update-ref", "-m", change.subject, "HEAD", commit, head ?? ZERO], { allowFail: true });
      if (moved.code !== 0)
        throw new KitError(
          "UPSTREAM_ERROR",
          `the branch moved while the commit was being made; nothing was committed`,
          { detail: { stderr: firstLines(moved.stderr) } },
        );
    } catch (e) {
      if (staged) rmSync(staged, { force: true });
      throw e;
    }
    // Committed: from here nothing may fail the item. The file lands by rename; an index left behind is finished on the next write.
    const file = join(repo.root, change.path);
    if (staged) renameSync(staged, file);
    else rmSync(file, { force: true });
    repo.git(["reset", "-q", "HEAD", "--", change.path], { allowFail: true });
    return commit;
  } finally {
    rmSync(index, { force: true });
  }
}

/** The prefix of a note's new file written beside it before the commit point (`notes/.<name>.brain-<pid>-<random>`). */
const STAGED = /^\..+\.brain-\d+-[a-z0-9]+$/;

/** Writes the change's new file beside its place, or nothing for a delete; on a failure (a full disk) it leaves nothing behind. */
function stageFile(repo: Repo, change: NoteChange): string | null {
  if (!change.content) return null;
  const file = join(repo.root, change.path);
  const slash = file.lastIndexOf("/");
  const staged = `${file.slice(0, slash)}/.${file.slice(slash + 1)}.brain-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  try {
    mkdirSync(file.slice(0, slash), { recursive: true });
    writeFileSync(staged, change.content);
    return staged;
  } catch (e) {
    rmSync(staged, { force: true });
    throw e;
  }
}

/** Removes staged files a killed write left in `folder` (called under the write lock, when no write of ours is in flight). */
export function sweepStaged(folder: string): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) if (STAGED.test(name)) rmSync(join(folder, name), { force: true });
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
 * work tree either the version before the commit or the one after it.
 * Anything else is a person's change, left alone, except when `key` is
 * HEAD's own key: the ledger says that item's write was cut short and
 * nothing was committed after it, so a file of its commit that is neither
 * version (one an older brain left half-written on a full disk) is its to
 * repair.
 */
export function finishOwnCommit(repo: Repo, key?: string): boolean {
  const status = repo.git(["status", "--porcelain", "-z", "--untracked-files=all"]).stdout;
  const head = headOf(repo);
  if (!status || !head) return false;
  const headKey = trailerOf(repo, head, TRAILER);
  if (!headKey) return false;
  const dirty = [
    ...new Set(
      status
        .split("\0")
        .filter(Boolean)
        .map((l) => l.slice(3)),
    ),
  ];
  const parent = repo.git(["rev-parse", "--verify", "-q", `${head}^`], { allowFail: true }).stdout.trim() || null;
  const touched = new Set(pathsOf(repo, head));
  for (const path of dirty) {
    const ours = [blobAt(repo, parent, path), blobAt(repo, head, path)];
    const staged = repo.git(["ls-files", "-s", "-z", "--", path]).stdout.split(" ")[1] ?? null;
    if (!touched.has(path) || !ours.includes(staged) || (headKey !== key && !ours.includes(workTreeBlob(repo, path))))
      return false;
  }
  syncToHead(repo, dirty);
  return true;
}

/** The blob id of the work tree's file at `path`, or null when there is none. */
function workTreeBlob(repo: Repo, path: string): string | null {
  const full = join(repo.root, path);
  return existsSync(full) ? blobHash(readFileSync(full)).replace(/^git:/, "") : null;
}
