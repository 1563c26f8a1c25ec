/**
 * The knowledge repository: a real git repository with notes under notes/.
 * git is run as a subprocess (no prompts, no pager); a blob hash is computed
 * the way git computes it, so preconditions need no subprocess per note.
 */
import { existsSync, lstatSync, readFileSync, statSync } from "node:fs";
import { KitError, resolvePath } from "agent-cli-kit";

export const REPO_ENV = "AGENT_BRAIN_REPO";

export interface GitOptions {
  readonly allowFail?: boolean;
  /** Written to git's stdin. */
  readonly input?: string | Uint8Array;
  /** Extra environment for this call (e.g. GIT_INDEX_FILE for a private index). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface Repo {
  readonly root: string;
  /** The repository's git directory (`.git`, or where a `gitdir:` file points). */
  readonly gitDir: string;
  /** Where `root` is below the top of its work tree, as git writes paths ("" or "knowledge/"). */
  readonly prefix: string;
  git(args: readonly string[], opts?: GitOptions): GitResult;
  /** git run in the background: this process goes on while it runs. */
  gitAsync(args: readonly string[]): Promise<GitResult>;
}

export interface GitResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function openRepo(
  given: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Repo {
  const path = given ?? env[REPO_ENV];
  if (!path)
    throw new KitError("MISSING_FLAG", `give --repo, or set ${REPO_ENV}`, {
      hint: `add --repo ./knowledge (a git repository of notes), or set ${REPO_ENV}`,
    });
  const root = resolvePath(cwd, path);
  if (!existsSync(root))
    throw new KitError("INVALID_INPUT", `${path} does not exist`, {
      got: path,
      hint: `give the path of a git repository of notes, or start one there: git init ${path}`,
    });
  if (!statSync(root).isDirectory())
    throw new KitError("INVALID_INPUT", `${path} is not a folder`, {
      got: path,
      hint: "give the path of a git repository",
    });
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !k.startsWith("GIT_")) childEnv[k] = v;
  Object.assign(childEnv, { GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", LC_ALL: "C" });
  // A read needs no git process to know it is in a repository: the folder or one above it holds .git
  // (a folder, or a file for a worktree or submodule). Writes run git, which checks again.
  const found = gitDirOf(root);
  if (!found)
    throw new KitError("INVALID_INPUT", `${path} is not a git repository`, {
      got: path,
      hint: `give the root of a git repository (git init ${path})`,
    });
  const prefix = root === found.top ? "" : root.slice(found.top.length + (found.top === "/" ? 0 : 1));
  assertNotesFolder(root);
  const repo = gitRunner(root, found.gitDir, prefix ? `${prefix}/` : "", childEnv);
  assertNoConflict(repo);
  return repo;
}

/** The repository at `root` with git run in it: in the environment `childEnv` (no GIT_* of the caller's, no prompt, no pager). */
function gitRunner(root: string, gitDir: string, prefix: string, childEnv: Record<string, string>): Repo {
  return {
    root,
    gitDir,
    prefix,
    git(args, opts = {}) {
      const p = Bun.spawnSync(["git", "-C", root, ...args], {
        env: opts.env ? { ...childEnv, ...opts.env } : childEnv,
        stdin:
          opts.input === undefined ? "ignore" : typeof opts.input === "string" ? Buffer.from(opts.input) : opts.input,
        stdout: "pipe",
        stderr: "pipe",
      });
      const out = { code: p.exitCode ?? 1, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
      if (out.code !== 0 && !opts.allowFail)
        throw new KitError("UPSTREAM_ERROR", `git ${args[0]} failed: ${out.stderr.trim().split("\n")[0]}`, {
          detail: { args, stderr: firstLines(out.stderr) },
        });
      return out;
    },
    async gitAsync(args) {
      const p = Bun.spawn(["git", "-C", root, ...args], {
        env: childEnv,
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([
        new Response(p.stdout).text(),
        new Response(p.stderr).text(),
        p.exited,
      ]);
      return { code, stdout, stderr };
    },
  };
}

/** A notes folder that is a link (out of the repository, say) is refused by every command, the same way every time: nothing there is the repository's. */
function assertNotesFolder(root: string): void {
  const st = lstatSync(`${root}/notes`, { throwIfNoEntry: false });
  if (!st || st.isDirectory()) return;
  throw new KitError(
    "INVALID_INPUT",
    `notes/ in ${root} is ${st.isSymbolicLink() ? "a symbolic link" : "not a folder"}; notes live in a folder of the repository itself`,
    {
      got: `${root}/notes`,
      hint: "make notes/ a real folder of the repository (move the notes into it and commit them)",
    },
  );
}

/** Git's own marks of a merge, rebase, cherry-pick or revert that stopped on conflicts. */
const STOPPED = ["MERGE_HEAD", "rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "REVERT_HEAD"];

/** Mid-merge with unmerged files, a note may hold conflict markers: CONFLICT, naming the files, rather than markers read as a note. */
function assertNoConflict(repo: Repo): void {
  if (!STOPPED.some((f) => existsSync(`${repo.gitDir}/${f}`))) return;
  const unmerged = [
    ...new Set(
      repo
        .git(["ls-files", "-u", "-z"], { allowFail: true })
        .stdout.split("\0")
        .filter(Boolean)
        .map((l) => l.slice(l.indexOf("\t") + 1)),
    ),
  ];
  if (!unmerged.length) return;
  throw new KitError(
    "CONFLICT",
    `a merge in ${repo.root} stopped on conflicts in ${unmerged.slice(0, 5).join(", ")}${unmerged.length > 5 ? `, and ${unmerged.length - 5} more` : ""}`,
    {
      detail: { files: unmerged.slice(0, 50) },
      hint: "resolve the files and commit the merge (git add, git commit), or abort it (git merge --abort)",
    },
  );
}

/** The git directory of the repository `dir` is in and the top of its work tree, found without running git: `.git` here or above, a folder or a `gitdir:` file. */
function gitDirOf(dir: string): { gitDir: string; top: string } | null {
  for (let d = dir; ; d = parentOf(d)) {
    const dotGit = `${d === "/" ? "" : d}/.git`;
    const st = statSync(dotGit, { throwIfNoEntry: false });
    if (st?.isDirectory()) return { gitDir: dotGit, top: d };
    if (st?.isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
      if (m) return { gitDir: resolvePath(d, m[1]!.trim()), top: d };
    }
    if (d === "/") return null;
  }
}

/** The folder above an absolute, normalised path ("/" above itself). */
/**
 * git's diagnostics, bounded by whole lines: a cut inside a line could halve a
 * credential (a remote's URL) that the redactor then no longer recognises.
 */
export const firstLines = (text: string, lines = 10): string => text.split("\n").slice(0, lines).join("\n");

const parentOf = (path: string): string => path.slice(0, path.lastIndexOf("/")) || "/";

/** Uncommitted changes would be swept into a note's commit, or clash with it. */
export function assertClean(repo: Repo): void {
  // Not trimmed: a line's first column is a space when only the work tree differs, and the path starts at the fourth.
  const status = repo.git(["status", "--porcelain", "--untracked-files=all"]).stdout;
  if (status.trim()) {
    const files = status
      .split("\n")
      .filter(Boolean)
      .map((l) => l.slice(3));
    throw new KitError(
      "PRECONDITION_FAILED",
      `the work tree of ${repo.root} has uncommitted changes (${files.slice(0, 3).join(", ")}${files.length > 3 ? ", …" : ""})`,
      {
        detail: { files: files.slice(0, 50) },
        hint: "commit or stash them first; brain only commits onto a clean tree",
      },
    );
  }
}

/** git's own object id for a blob with these bytes (sha1 repositories). */
export const blobHash = (bytes: Uint8Array): string => {
  const h = new Bun.CryptoHasher("sha1");
  h.update(`blob ${bytes.length}\0`);
  h.update(bytes);
  return `git:${h.digest("hex")}`;
};
