/**
 * brain's persisted note index, through the compiled binary on real git
 * repositories: calls at once, each answering as the files say; rebuilt (with
 * a warning on stderr) when its file is damaged; a call that waits for
 * another's write; odd repository layouts; and the same answers as an index
 * built from scratch. That it follows commits, a rebase, a branch switch and
 * hand edits is shown in-process, beside the code (tools/brain/lib/*.test.ts).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EVERY_FILE } from "../../tools/brain/lib/index-plan.ts";
import { NoteIndex } from "../../tools/brain/lib/note-index.ts";
import { INDEX_FROM } from "../../tools/brain/lib/few-notes.ts";
import { STATUS_FROM } from "../../tools/brain/lib/read-notes.ts";
import { baseEnv, binary, run } from "../helpers/bin.ts";
import { commitAll, listAll } from "../helpers/notes-repo.ts";

const WORDS =
  "harbour spade trowel hoe steel forge temper quench handle ash oak linseed soil compost winter spring harvest seed bed blade edge file angle rust oil shed boat".split(
    " ",
  );

function repoOf(
  notes: number,
  seed = 7,
): { repo: string; git: ReturnType<typeof commitAll>; write(id: string, title: string, body: string): void } {
  const repo = mkdtempSync(join(tmpdir(), "brain-index-"));
  mkdirSync(join(repo, "notes"));
  let s = seed;
  const word = () => WORDS[(s = (s * 1103515245 + 12345) & 0x7fffffff) % WORDS.length]!;
  const write = (id: string, title: string, body: string) =>
    writeFileSync(
      join(repo, "notes", `${id}.md`),
      `---\nid: ${id}\ntitle: ${title}\ntags: [${word()}]\n---\n\n${body}\n`,
    );
  for (let i = 0; i < notes; i++)
    write(`n-${String(i).padStart(4, "0")}`, `${word()} and ${word()}`, Array.from({ length: 40 }, word).join(" "));
  return { repo, git: commitAll(repo), write };
}

/** A file changed within 50 ms of being read is read again anyway ("racily clean"): calls are spaced past that, so that only a correct index passes. */
const brain = async (repo: string, args: string[]) => {
  await Bun.sleep(60);
  return run(binary("brain"), [...args, "--repo", repo, "--json"]);
};
const search = async (repo: string, query: string) =>
  (await brain(repo, ["search", "--query", query, "--limit", "100"])).json.data.items.map((i: any) => [i.id, i.title]);
/** Every listed id, page after page. */
const ids = async (repo: string, extra: string[] = []): Promise<string[]> =>
  (await listAll(repo, extra)).map((n) => n.id);
/**
 * Whether process `pid` has the file `path` open and is asleep in the kernel's
 * nanosleep, as SQLite's busy handler sleeps between its tries for a lock.
 */
function asleepHolding(pid: number, path: string): boolean {
  try {
    const fds = readdirSync(`/proc/${pid}/fd`);
    if (!fds.some((fd) => readlinkSafe(`/proc/${pid}/fd/${fd}`) === path)) return false;
    return readFileSync(`/proc/${pid}/wchan`, "utf8").includes("nanosleep");
  } catch {
    return false; // not started yet, or gone
  }
}
const readlinkSafe = (link: string): string | null => {
  try {
    return readlinkSync(link);
  } catch {
    return null;
  }
};
const indexFiles = (repo: string) => readdirSync(join(repo, ".git", "brain")).filter((f) => f.endsWith(".sqlite"));

// Below STATUS_FROM notes each file is checked by its signature; from there on git says what changed. Both ways, the same promises
// (from INDEX_FROM notes on, where a list too reads the index).
for (const size of [INDEX_FROM + 8, STATUS_FROM + 50]) {
  describe(`the persisted note index over ${size} notes`, () => {
    test("calls at once after commits, each changing notes, all answer as the files say, with no warning", async () => {
      const { repo, git, write } = repoOf(size, 5);
      await search(repo, "zeppelin");
      await search(repo, "zeppelin");
      for (let round = 0; round < 4; round++) {
        const changed = [round * 3, round * 3 + 1].map((n) => `n-${String(n).padStart(4, "0")}`);
        for (const id of changed) write(id, `Zeppelin round ${round}`, `zeppelin ${id} round ${round}`);
        git("commit", "-qam", `round ${round}`);
        // And one uncommitted edit, undone in the next round.
        write("n-0020", round % 2 ? "Zeppelin edit" : "plain", round % 2 ? "zeppelin by hand" : "nothing to see");
        const calls = await Promise.all(
          [0, 1, 2, 3].map(() => brain(repo, ["search", "--query", "zeppelin", "--limit", "100"])),
        );
        const expected = [
          ...Array.from({ length: round + 1 }, (_, r) => [r * 3, r * 3 + 1])
            .flat()
            .map((n) => `n-${String(n).padStart(4, "0")}`),
          ...(round % 2 ? ["n-0020"] : []),
        ].sort();
        for (const c of calls) {
          expect({ code: c.code, stderr: c.stderr }).toEqual({ code: 0, stderr: "" });
          expect(c.json.data.items.map((i: any) => i.id).sort()).toEqual(expected);
        }
      }
    }, 120_000);

    test("a damaged index file is rebuilt, with a warning on stderr, and answers as before", async () => {
      const { repo } = repoOf(size);
      const before = await search(repo, "linseed quench");
      await search(repo, "linseed quench");
      const file = join(repo, ".git", "brain", indexFiles(repo)[0]!);
      truncateSync(file, 100);
      const r = await brain(repo, ["search", "--query", "linseed quench", "--limit", "100"]);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("rebuilding it");
      expect(r.json.data.items.map((i: any) => [i.id, i.title])).toEqual(before);
      writeFileSync(file, "not a database at all");
      const again = await brain(repo, ["note", "list", "--limit", "500"]);
      expect(again.stderr).toContain("rebuilding it");
      expect(again.json.meta.pagination.total).toBe(size);
    }, 120_000);
  });
}

describe("the persisted note index", () => {
  test("a call that finds the index being written waits for the writer, and neither fails nor rebuilds it", async () => {
    const { repo, write } = repoOf(30);
    await search(repo, "zeppelin");
    write("n-0004", "Zeppelin", "a zeppelin"); // the next call has to write
    const file = join(repo, ".git", "brain", indexFiles(repo)[0]!);
    const db = new Database(file);
    db.run("BEGIN IMMEDIATE"); // as another call bringing the index up to date holds it
    const call = Bun.spawn([binary("brain"), "search", "--query", "zeppelin", "--repo", repo, "--json"], {
      env: baseEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    // Released only once the call is seen waiting for it (polled in /proc), and the call still running then.
    while (!asleepHolding(call.pid, realpathSync(file))) {
      expect(call.exitCode).toBeNull();
      await Bun.sleep(10);
    }
    expect(call.exitCode).toBeNull();
    db.run("COMMIT");
    db.close();
    const [out, stderr, code] = await Promise.all([
      new Response(call.stdout).text(),
      new Response(call.stderr).text(),
      call.exited,
    ]);
    expect({ code, stderr, ids: JSON.parse(out).data.items.map((i: any) => i.id) }).toEqual({
      code: 0,
      stderr: "",
      ids: ["n-0004"],
    });
  }, 120_000);

  test("notes kept in a folder below the top of a bigger repository: git's paths are read against that folder", async () => {
    const top = mkdtempSync(join(tmpdir(), "brain-top-"));
    const repo = join(top, "kb");
    mkdirSync(join(repo, "notes"), { recursive: true });
    writeFileSync(join(top, "README.md"), "the project\n");
    const note = (id: string, body: string) =>
      writeFileSync(join(repo, "notes", `${id}.md`), `---\ntitle: ${id}\n---\n\n${body}\n`);
    for (let i = 0; i < STATUS_FROM + 10; i++) note(`n-${String(i).padStart(4, "0")}`, "plain words");
    const git = commitAll(top);
    await search(repo, "zeppelin");
    expect(await search(repo, "zeppelin")).toEqual([]);
    note("n-0001", "a zeppelin, committed");
    git("commit", "-qam", "one");
    expect(await search(repo, "zeppelin")).toEqual([["n-0001", "n-0001"]]);
    note("n-0002", "a zeppelin, by hand");
    expect((await search(repo, "zeppelin")).map((h: string[]) => h[0]).sort()).toEqual(["n-0001", "n-0002"]);
  }, 120_000);

  test("a repository with no commit yet, past the git-status size: every note is untracked, and a hand edit is never missed", async () => {
    const repo = mkdtempSync(join(tmpdir(), "brain-initial-"));
    mkdirSync(join(repo, "notes"));
    const note = (id: string, body: string) =>
      writeFileSync(join(repo, "notes", `${id}.md`), `---\ntitle: ${id}\n---\n\n${body}\n`);
    for (let i = 0; i < STATUS_FROM + 10; i++) note(`n-${String(i).padStart(4, "0")}`, "plain words");
    Bun.spawnSync(["git", "init", "-q", repo]);
    // The first call indexes every file by its signature; the next ones ask git, which tracks none of them.
    for (let i = 0; i < 3; i++) expect(await search(repo, "zeppelin")).toEqual([]);
    note("n-0001", "a zeppelin, by hand");
    expect(await search(repo, "zeppelin")).toEqual([["n-0001", "n-0001"]]);
    expect(await search(repo, "zeppelin")).toEqual([["n-0001", "n-0001"]]);
    note("n-0001", "gone again");
    expect(await search(repo, "zeppelin")).toEqual([]);
  }, 120_000);

  test("in a linked worktree it lives in that worktree's git directory, and the work tree stays clean", async () => {
    const { repo, git } = repoOf(5);
    const tree = join(mkdtempSync(join(tmpdir(), "brain-wt-")), "wt");
    git("worktree", "add", "-q", tree);
    expect((await search(tree, "zeppelin")).length).toBe(0);
    expect(
      readdirSync(join(repo, ".git", "worktrees", "wt", "brain")).filter((f) => f.endsWith(".sqlite")).length,
    ).toBe(1);
    expect(readdirSync(tree).sort()).toEqual([".git", "notes"]);
    expect(git("-C", tree, "status", "--porcelain").trim()).toBe("");
  }, 120_000);

  test("four calls at once on a repository with no index yet all answer the same, with no warning", async () => {
    for (let round = 0; round < 3; round++) {
      const { repo } = repoOf(200, round + 3);
      const calls = await Promise.all(
        [0, 1, 2, 3].map(() => brain(repo, ["search", "--query", "linseed quench", "--limit", "100"])),
      );
      for (const c of calls) expect({ code: c.code, stderr: c.stderr }).toEqual({ code: 0, stderr: "" });
      const answers = calls.map((c) => JSON.stringify(c.json.data.items));
      expect(new Set(answers).size).toBe(1);
      expect(indexFiles(repo).length).toBe(1);
    }
  }, 120_000);

  test("after many incremental changes, search answers exactly as an index built from scratch (500 notes)", async () => {
    const { repo, git, write } = repoOf(500, 11);
    await search(repo, "harbour"); // builds the persisted index
    for (let i = 0; i < 60; i++)
      write(
        `n-${String(i * 7).padStart(4, "0")}`,
        `rewritten ${WORDS[i % WORDS.length]}`,
        Array.from({ length: 30 }, (_, k) => WORDS[(i + k) % WORDS.length]).join(" "),
      );
    for (let i = 0; i < 20; i++)
      rmSync(join(repo, "notes", `n-${String(i * 11 + 1).padStart(4, "0")}`.concat(".md")), { force: true });
    git("add", "-A");
    git("commit", "-qm", "churn");
    const silent = { warn: () => {} };
    for (const query of ["harbour", "linseed quench", "spring edge", "oil", "zzz-nothing", "rewritten ash"]) {
      const compiled = (await brain(repo, ["search", "--query", query, "--limit", "100"])).json.data.items.map(
        (i: any) => [i.id, i.score],
      );
      const scratch = NoteIndex.open(repo, silent, null, Date.now);
      scratch.refresh(null, () => EVERY_FILE);
      const expected = scratch.search(query, [], { offset: 0, limit: 100 }).items.map((h) => [h.note.id, h.score]);
      scratch.close();
      expect({ query, hits: compiled }).toEqual({ query, hits: expected });
    }
    const id = (n: number) => `n-${String(n).padStart(4, "0")}`;
    const deleted = new Set(Array.from({ length: 20 }, (_, i) => id(i * 11 + 1)));
    const rewritten = Array.from({ length: 60 }, (_, i) => id(i * 7))
      .filter((x) => !deleted.has(x))
      .sort();
    expect(await ids(repo, ["--text", "rewritten"])).toEqual(rewritten);
    expect(readFileSync(join(repo, "notes", "n-0000.md"), "utf8")).toContain("rewritten");
  }, 120_000);
});
