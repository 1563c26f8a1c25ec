/** `brain search` and `brain note list` over a generated repository of 10,000 notes: medians of the compiled binary. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, roundsArg, runOnce } from "./measure.ts";

const NOTES = 10_000;
const WORDS = "harbour spade trowel hoe steel forge temper quench handle ash oak linseed soil compost winter spring harvest seed bed blade edge file angle rust oil shed boat".split(" ");

function generate(): string {
  const repo = mkdtempSync(join(tmpdir(), "brain-bench-"));
  mkdirSync(join(repo, "notes"));
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  for (let i = 0; i < NOTES; i++) {
    const id = `note-${String(i).padStart(5, "0")}`;
    const body = Array.from({ length: 120 }, word).join(" ");
    writeFileSync(join(repo, "notes", `${id}.md`), `---\nid: ${id}\ntitle: ${word()} and ${word()} ${i}\ntags: [${word()}, ${word()}]\n---\n\n${body}\n`);
  }
  const git = (...a: string[]) => Bun.spawnSync(["git", "-C", repo, ...a], { env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" } });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "notes");
  return repo;
}

export async function benchBrain(rounds: number): Promise<void> {
  const repo = generate();
  const brain = join(import.meta.dir, "..", "..", "dist", "brain");
  const cases = [
    { name: "brain search --query 'linseed handle'", argv: [brain, "search", "--repo", repo, "--query", "linseed handle", "--json"] },
    { name: "brain note list (first page)", argv: [brain, "note", "list", "--repo", repo, "--json"] },
    { name: "brain note list --tag rust --text quench", argv: [brain, "note", "list", "--repo", repo, "--tag", "rust", "--text", "quench", "--json"] },
  ];
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let i = 0; i < rounds; i++)
    for (const c of cases) {
      const s = await runOnce(c);
      if (s.exitCode !== 0) throw new Error(`${c.name} exited ${s.exitCode}`);
      samples.get(c.name)!.push(s.wallMs);
    }
  console.log(`\n## brain over ${NOTES.toLocaleString("en")} notes (median of ${rounds}, whole process: read and parse every note, then answer)`);
  for (const c of cases) console.log(`  ${c.name.padEnd(44)} ${median(samples.get(c.name)!).toFixed(0).padStart(6)} ms`);
}

if (import.meta.main) await benchBrain(Math.max(3, Math.min(10, Math.round(roundsArg() / 4))));
