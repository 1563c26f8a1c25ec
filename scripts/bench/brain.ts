/**
 * `brain search` and `brain note list` over generated repositories of 10,000
 * and 100,000 notes, through the compiled binary (whole process): the first
 * call (no index yet: it is built), warm calls (medians), a call after a
 * commit that changes one note, and the index's size on disk.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, roundsArg, runOnce, type Case } from "./measure.ts";

const WORDS =
  "harbour spade trowel hoe steel forge temper quench handle ash oak linseed soil compost winter spring harvest seed bed blade edge file angle rust oil shed boat".split(
    " ",
  );
const brain = join(import.meta.dir, "..", "..", "dist", "brain");

function generate(notes: number, commit: boolean): { repo: string; git: (...a: string[]) => void } {
  const repo = mkdtempSync(join(tmpdir(), "brain-bench-"));
  mkdirSync(join(repo, "notes"));
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  for (let i = 0; i < notes; i++) {
    const id = `note-${String(i).padStart(6, "0")}`;
    writeFileSync(
      join(repo, "notes", `${id}.md`),
      `---\nid: ${id}\ntitle: ${word()} and ${word()} ${i}\ntags: [${word()}, ${word()}]\n---\n\n${Array.from({ length: 120 }, word).join(" ")}\n`,
    );
  }
  const git = (...a: string[]) =>
    void Bun.spawnSync(["git", "-C", repo, ...a], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "b",
        GIT_AUTHOR_EMAIL: "b@b",
        GIT_COMMITTER_NAME: "b",
        GIT_COMMITTER_EMAIL: "b@b",
      },
    });
  git("init", "-q");
  if (commit) {
    git("add", "-A");
    git("commit", "-qm", "notes");
  }
  return { repo, git };
}

const timed = async (c: Case): Promise<number> => {
  const s = await runOnce(c);
  if (s.exitCode !== 0) throw new Error(`${c.name} exited ${s.exitCode}`);
  return s.wallMs;
};

async function section(notes: number, rounds: number, commit: boolean): Promise<void> {
  const { repo, git } = generate(notes, commit);
  const search: Case = {
    name: "search",
    argv: [brain, "search", "--repo", repo, "--query", "linseed handle", "--json"],
  };
  const list: Case = { name: "list", argv: [brain, "note", "list", "--repo", repo, "--json"] };
  const filtered: Case = {
    name: "filtered",
    argv: [brain, "note", "list", "--repo", repo, "--tag", "rust", "--text", "quench", "--json"],
  };
  const first = await timed(search);
  const warm = async (c: Case) => {
    const xs: number[] = [];
    for (let i = 0; i < rounds; i++) xs.push(await timed(c));
    return median(xs);
  };
  const [ws, wl, wf] = [await warm(search), await warm(list), await warm(filtered)];
  const afterCommit: number[] = [];
  for (let i = 0; i < Math.min(rounds, 5); i++) {
    const id = `note-${String(i * 13).padStart(6, "0")}`;
    writeFileSync(
      join(repo, "notes", `${id}.md`),
      `---\nid: ${id}\ntitle: changed ${i}\ntags: [oak]\n---\n\nchanged linseed handle ${i}\n`,
    );
    if (commit) git("commit", "-qam", `change ${i}`);
    afterCommit.push(await timed(search));
  }
  const dir = join(repo, ".git", "brain");
  const bytes = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  console.log(`\n## brain over ${notes.toLocaleString("en")} notes (whole process; warm = median of ${rounds})`);
  console.log(`  search, first call (builds the index)      ${first.toFixed(0).padStart(7)} ms`);
  console.log(`  search, warm                               ${ws.toFixed(0).padStart(7)} ms`);
  console.log(
    `  search, after ${commit ? "a commit that changes" : "an edit to"} one note ${" ".repeat(commit ? 1 : 6)}${median(afterCommit).toFixed(0).padStart(7)} ms`,
  );
  console.log(`  note list (first page), warm               ${wl.toFixed(0).padStart(7)} ms`);
  console.log(`  note list --tag rust --text quench, warm   ${wf.toFixed(0).padStart(7)} ms`);
  console.log(`  index on disk (.git/brain)                 ${(bytes / 1024 / 1024).toFixed(1).padStart(7)} MB`);
  rmSync(repo, { recursive: true, force: true });
}

export async function benchBrain(rounds: number): Promise<void> {
  await section(10_000, rounds, true);
  // 100,000 notes, committed: the index then learns what changed from git, as it does in a real repository.
  if (!process.argv.includes("--no-big")) await section(100_000, Math.max(3, Math.floor(rounds / 2)), true);
}

if (import.meta.main) await benchBrain(Math.max(3, Math.min(10, Math.round(roundsArg() / 4))));
