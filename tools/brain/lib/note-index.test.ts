/**
 * The persisted note index, in-process, on real git repositories and real
 * SQLite files: where it lives, how it ranks and filters, that it is never
 * out of step with the files (every file checked by its signature: the
 * path below STATUS_FROM notes), that another process's writes are seen, and
 * that a damaged file is rebuilt with a warning.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { notesRepo, settle } from "../../../test/helpers/note-files.ts";
import { EVERY_FILE } from "./index-plan.ts";
import { NoteIndex } from "./note-index.ts";
import { queryTerms } from "./query-terms.ts";

const ALL = { offset: 0, limit: 10_000 };

/** The repository's index, brought up to date by checking every file, as a call on a small repository does. */
function indexOf(repo: string, warnings: string[] = [], inMemory = false): NoteIndex {
  settle(repo);
  const index = NoteIndex.open(repo, { warn: (m) => warnings.push(m) }, inMemory ? null : join(repo, ".git"), Date.now);
  index.refresh(EVERY_FILE, () => EVERY_FILE);
  return index;
}

/** What an index built from scratch (in memory) lists: the files as they are. */
function fromScratch(repo: string): unknown {
  const fresh = indexOf(repo, [], true);
  try {
    return [fresh.list([], undefined, ALL), fresh.unreadable()];
  } finally {
    fresh.close();
  }
}

const note = (title: string, tags: string[], body: string) =>
  `---\ntitle: ${title}\ntags: [${tags.join(", ")}]\n---\n\n${body}\n`;

describe("the index file", () => {
  test("lives in the repository's git directory, one per notes root; nothing is written to the work tree", () => {
    const { repo, git } = notesRepo(5);
    indexOf(repo).close();
    expect(readdirSync(join(repo, ".git", "brain")).filter((f) => f.endsWith(".sqlite"))).toHaveLength(1);
    expect(git("status", "--porcelain", "--ignored")).toBe("");
  });

  test("one that is not an index of this format, or not a database at all, is rebuilt with a warning, and answers as before", () => {
    const { repo } = notesRepo(5);
    const index = indexOf(repo);
    const before = index.list([], undefined, ALL);
    index.close();
    const file = join(
      repo,
      ".git",
      "brain",
      readdirSync(join(repo, ".git", "brain")).find((f) => f.endsWith(".sqlite"))!,
    );
    for (const damage of ["not a database at all", ""]) {
      rmSync(`${file}-wal`, { force: true });
      rmSync(`${file}-shm`, { force: true });
      writeFileSync(file, damage);
      const warnings: string[] = [];
      const again = indexOf(repo, warnings);
      expect(again.list([], undefined, ALL)).toEqual(before);
      expect(warnings).toEqual([
        expect.stringMatching(/^the note index .* (cannot be read|is of another format).*: rebuilding it$/),
      ]);
      again.close();
    }
  });
});

/** Five notes, each matching its own way. */
function searchable(): string {
  const { repo } = notesRepo(0);
  const put = (id: string, text: string) => writeFileSync(join(repo, "notes", `${id}.md`), text);
  // The same length of title, tags and body each: only where the word is differs.
  put("a-title", note("Forge", ["tools"], "plain words here"));
  put("b-body", note("Other", ["tools"], "forge words here"));
  put("c-tags", note("Third", ["forge"], "plain words here"));
  put("d-accent", note("Été au port", ["summer"], "Über den Hafen"));
  put("e-sharp", note("Sharpening a spade", ["tools"], "a file and a stone"));
  return repo;
}

describe("search", () => {
  test("every word of the query a prefix, any of them matching; a title match weighs most, then tags, then the body", () => {
    const index = indexOf(searchable());
    const hits = index.search("forg", [], ALL);
    expect([hits.total, hits.items.map((h) => h.note.id)]).toEqual([3, ["a-title", "c-tags", "b-body"]]);
    expect(hits.items.map((h) => h.score)).toEqual([...hits.items.map((h) => h.score)].sort((x, y) => y - x));
    expect(index.search("sharp ZEPPELIN", [], ALL).items.map((h) => h.note.id)).toEqual(["e-sharp"]);
    index.close();
  });

  test("accents and case aside; a query of no words finds nothing; tags filter; the window pages the same ranking", () => {
    const index = indexOf(searchable());
    expect(index.search("ete uber", [], ALL).items.map((h) => h.note.id)).toEqual(["d-accent"]);
    expect(index.search("?!-", [], ALL)).toEqual({ total: 0, items: [] });
    expect(index.search("forge", ["forge"], ALL).items.map((h) => h.note.id)).toEqual(["c-tags"]);
    const all = index.search("forge", [], ALL).items.map((h) => h.note.id);
    const pages = [0, 1, 2].flatMap((offset) =>
      index.search("forge", [], { offset, limit: 1 }).items.map((h) => h.note.id),
    );
    expect(pages).toEqual(all);
    index.close();
  });

  test("the words of a query: letters and digits, lower-cased, each once", () => {
    expect(queryTerms("Zeppelin-hangar ZEPPELIN, ﬁle 42!")).toEqual(["zeppelin", "hangar", "file", "42"]);
  });
});

describe("list", () => {
  test("by id, with every tag asked for, with text folded as JavaScript folds it; unreadable notes set apart with why", () => {
    const { repo } = notesRepo(0);
    writeFileSync(join(repo, "notes", "b.md"), note("Straße am Hafen", ["oak", "ash"], "ÉTÉ"));
    writeFileSync(join(repo, "notes", "a.md"), note("Oak only", ["oak"], "été"));
    writeFileSync(join(repo, "notes", "c.md"), "---\ntitle: [unclosed\n---\n\nbad yaml\n");
    writeFileSync(join(repo, "notes", "d.md"), new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]));
    const index = indexOf(repo);
    const ids = (tags: string[], text?: string) => index.list(tags, text, ALL).items.map((n) => n.id);
    expect([ids([]), ids(["oak"]), ids(["oak", "ash"]), ids([], "STRASSE"), ids([], "straße"), ids([], "été")]).toEqual(
      [["a", "b"], ["a", "b"], ["b"], [], ["b"], ["a", "b"]],
    );
    expect(index.list([], undefined, { offset: 1, limit: 1 })).toMatchObject({ total: 2, items: [{ id: "b" }] });
    expect(index.unreadable().map((u) => [u.id, u.reason.split(":")[0]])).toEqual([
      ["c", "the front matter of notes/c.md is not valid YAML"],
      ["d", "notes/d.md is not valid UTF-8"],
    ]);
    index.close();
  });
});

describe("never out of step with the files", () => {
  test("a hand edit, a new note, a deleted one and changed tags are all seen, and answer as an index built from scratch", () => {
    const { repo, write } = notesRepo(40);
    const index = indexOf(repo);
    write("n-0003", "Zeppelin maintenance", "the zeppelin hangar");
    write("n-9000", "Brand new", "zeppelin sighted");
    rmSync(join(repo, "notes", "n-0007.md"));
    writeFileSync(join(repo, "notes", "n-0011.md"), note("Retagged", ["airship"], "body"));
    settle(repo);
    index.refresh(EVERY_FILE, () => EVERY_FILE);
    expect(
      index
        .search("zeppelin", [], ALL)
        .items.map((h) => h.note.id)
        .sort(),
    ).toEqual(["n-0003", "n-9000"]);
    expect(index.list(["airship"], undefined, ALL).items.map((n) => n.id)).toEqual(["n-0011"]);
    expect([index.list([], undefined, ALL), index.unreadable()]).toEqual(fromScratch(repo) as never);
    index.close();
  });

  test("a same-size edit that keeps the file's mtime to the nanosecond is still seen: its ctime changed", () => {
    const { repo } = notesRepo(3);
    const file = join(repo, "notes", "n-0001.md");
    const stamp = join(repo, ".git", "stamp");
    const index = indexOf(repo);
    const before = statSync(file, { bigint: true });
    // As an editor writing in place within one tick of the clock leaves it: new bytes, the same size, inode and mtime.
    expect(Bun.spawnSync(["touch", "-r", file, stamp]).exitCode).toBe(0);
    writeFileSync(file, `${readFileSync(file, "utf8").slice(0, -9)}zeppelin\n`);
    expect(Bun.spawnSync(["touch", "-r", stamp, file]).exitCode).toBe(0);
    const after = statSync(file, { bigint: true });
    expect([after.size, after.ino, after.mtimeNs]).toEqual([before.size, before.ino, before.mtimeNs]);
    index.refresh(EVERY_FILE, () => EVERY_FILE);
    expect(index.list([], "zeppelin", ALL).items.map((n) => n.id)).toEqual(["n-0001"]);
    index.close();
  });

  test("a refresh with nothing changed writes nothing; answers remembered before another process's write are not served after it", () => {
    const { repo, write } = notesRepo(10);
    const mine = indexOf(repo);
    const theirs = indexOf(repo);
    expect(mine.list([], "zeppelin", ALL).total).toBe(0); // remembered
    write("n-0004", "Zeppelin", "a zeppelin");
    settle(repo);
    theirs.refresh(EVERY_FILE, () => EVERY_FILE); // the other process brings the file up to date
    mine.refresh(EVERY_FILE, () => {
      throw new Error("nothing left to write: the plan made without the lock is empty");
    });
    expect(mine.list([], "zeppelin", ALL).items.map((n) => n.id)).toEqual(["n-0004"]);
    mine.close();
    theirs.close();
  });
});
