/**
 * Real git repositories of notes for the in-process tests beside
 * tools/brain/lib: made in a temp folder, committed, and edited by hand or by
 * git as a person would.
 */
import { mkdirSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const IDENTITY = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
};

const WORDS =
  "harbour spade trowel hoe steel forge temper quench handle ash oak linseed soil compost winter spring harvest seed bed blade edge file angle rust oil shed boat".split(
    " ",
  );

export interface NotesRepo {
  readonly repo: string;
  git(...args: string[]): string;
  /** Writes notes/<id>.md with this title and body (and a tag from the repository's words). */
  write(id: string, title: string, body: string): void;
}

const gitIn =
  (repo: string) =>
  (...args: string[]): string => {
    const p = Bun.spawnSync(["git", "-C", repo, ...args], { env: { ...process.env, ...IDENTITY }, stderr: "pipe" });
    if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr.toString()}`);
    return p.stdout.toString();
  };

/** Writes notes/<id>.md in `repo`, tagged with a word drawn from `word`. */
const writer = (repo: string, word: () => string) => (id: string, title: string, body: string) =>
  writeFileSync(
    join(repo, "notes", `${id}.md`),
    `---\nid: ${id}\ntitle: ${title}\ntags: [${word()}]\n---\n\n${body}\n`,
  );

const wordsFrom = (seed: number) => {
  let s = seed;
  return () => WORDS[(s = (s * 1103515245 + 12345) & 0x7fffffff) % WORDS.length]!;
};

/** Each size and seed made and committed once; every repository asked for is a clone of it (a clone costs less than hashing every note again). */
const templates = new Map<string, string>();

function template(notes: number, seed: number): string {
  const key = `${notes}/${seed}`;
  const made = templates.get(key);
  if (made) return made;
  const repo = mkdtempSync(join(tmpdir(), "brain-lib-template-"));
  mkdirSync(join(repo, "notes"));
  const word = wordsFrom(seed);
  const write = writer(repo, word);
  for (let i = 0; i < notes; i++)
    write(`n-${String(i).padStart(4, "0")}`, `${word()} and ${word()}`, Array.from({ length: 40 }, word).join(" "));
  const git = gitIn(repo);
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "--allow-empty", "-m", "notes");
  templates.set(key, repo);
  return repo;
}

/** A committed repository of `notes` notes (n-0000, n-0001, …) of words drawn from `seed`, on branch main, its own. */
export function notesRepo(notes: number, seed = 7): NotesRepo {
  const repo = join(mkdtempSync(join(tmpdir(), "brain-lib-")), "repo");
  const cloned = Bun.spawnSync(["git", "clone", "-q", "--local", template(notes, seed), repo], { stderr: "pipe" });
  if (cloned.exitCode !== 0) throw new Error(`git clone: ${cloned.stderr.toString()}`);
  // An empty notes folder is not in the commit: made as the original has it.
  mkdirSync(join(repo, "notes"), { recursive: true });
  return { repo, git: gitIn(repo), write: writer(repo, wordsFrom(seed + 1)) };
}

/**
 * The notes written since the last call dated ten seconds back, as if written
 * well before the next read. A file changed within the clock's granularity of
 * being read is read again anyway ("racily clean"), which would hide an index
 * that missed the change: dated back, only a correct index passes. Files not
 * written since are left alone, so their signatures stay as they were read.
 */
export function settle(repo: string): void {
  const now = Date.now();
  const back = (now - 10_000) / 1000;
  for (const name of readdirSync(join(repo, "notes"))) {
    const file = join(repo, "notes", name);
    if (statSync(file).mtimeMs > now - 5_000) utimesSync(file, back, back);
  }
}
