/**
 * brain's reads bring the index up to date from what git says changed (from
 * STATUS_FROM notes on) or from every file's signature (below): run
 * in-process through the kit's seam on real git repositories of both sizes,
 * a commit, a branch switch, a rebase, hand edits, an untracked and an
 * ignored note, a staged note and a reset are never served stale.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runInProcess } from "../../../test/helpers/in-process.ts";
import { notesRepo, settle } from "../../../test/helpers/note-files.ts";
import brainTool from "../tool.ts";
import { INDEX_FROM } from "./few-notes.ts";
import { STATUS_FROM } from "./read-notes.ts";

/** A brain call on `repo`, its files settled first (see settle); its envelope. */
async function brain(repo: string, args: string[]): Promise<any> {
  settle(repo);
  const r = await runInProcess(brainTool, [...args, "--repo", repo, "--json"]);
  if (r.code !== 0) throw new Error(`brain ${args.join(" ")} exited ${r.code}: ${r.stdout}${r.stderr}`);
  return r.json;
}
const search = async (repo: string, query: string): Promise<string[][]> =>
  (await brain(repo, ["search", "--query", query, "--limit", "100"])).data.items.map((i: any) => [i.id, i.title]);
/** Every listed id, page after page. */
async function ids(repo: string, extra: string[] = []): Promise<string[]> {
  const out: string[] = [];
  for (let cursor: string | null = null; ; ) {
    const page = await brain(repo, [
      "note",
      "list",
      "--limit",
      "500",
      ...extra,
      ...(cursor ? ["--cursor", cursor] : []),
    ]);
    out.push(...page.data.items.map((n: any) => n.id));
    cursor = page.meta.pagination?.next_cursor ?? null;
    if (!cursor) return out;
  }
}
const loose = (title: string, body: string) => `---\ntitle: ${title}\n---\n\n${body}\n`;

// Below STATUS_FROM notes every file is checked by its signature; from there on git says what changed.
for (const size of [INDEX_FROM + 8, STATUS_FROM + 50]) {
  describe(`the reads of a repository of ${size} notes`, () => {
    test("commits, a branch switch and a rebase are followed", async () => {
      const { repo, git, write } = notesRepo(size);
      expect(await search(repo, "zeppelin")).toEqual([]);
      git("checkout", "-q", "-b", "airships");
      write("n-0003", "Zeppelin maintenance", "the zeppelin hangar by the harbour");
      git("commit", "-qam", "zeppelin");
      expect(await search(repo, "zeppelin")).toEqual([["n-0003", "Zeppelin maintenance"]]);
      git("checkout", "-q", "main");
      expect(await search(repo, "zeppelin")).toEqual([]);
      git("checkout", "-q", "airships");
      git("rebase", "-q", "main");
      write("n-0003", "Zeppelin maintenance, revised", "the zeppelin hangar moved inland");
      git("commit", "-qam", "revise");
      expect(await search(repo, "zeppelin")).toEqual([["n-0003", "Zeppelin maintenance, revised"]]);
      expect(readdirSync(join(repo, ".git", "brain")).filter((f) => f.endsWith(".sqlite"))).toHaveLength(1);
    }, 120_000);

    test("hand edits, a new and a deleted note, changed tags, and git undoing them are followed", async () => {
      const { repo, git, write } = notesRepo(size);
      await search(repo, "zeppelin");
      write("n-0005", "Dirigible notes", "a zeppelin by hand");
      write("n-9000", "Brand new", "zeppelin sighted");
      rmSync(join(repo, "notes", "n-0007.md"));
      expect((await search(repo, "zeppelin")).map((h) => h[0]).sort()).toEqual(["n-0005", "n-9000"]);
      expect(await ids(repo)).toEqual(expect.arrayContaining(["n-9000"]));
      expect(await ids(repo)).not.toContain("n-0007");
      const tagged = (tag: string) => `---\ntitle: Retagged\ntags: [${tag}]\n---\n\nbody\n`;
      writeFileSync(join(repo, "notes", "n-0011.md"), tagged("airship"));
      expect(await ids(repo, ["--tag", "airship"])).toEqual(["n-0011"]);
      writeFileSync(join(repo, "notes", "n-0011.md"), tagged("balloon"));
      expect([await ids(repo, ["--tag", "airship"]), await ids(repo, ["--tag", "balloon"])]).toEqual([[], ["n-0011"]]);
      git("checkout", "-q", "--", "notes/n-0005.md", "notes/n-0007.md", "notes/n-0011.md");
      rmSync(join(repo, "notes", "n-9000.md"));
      expect(await search(repo, "zeppelin")).toEqual([]);
      expect(await ids(repo)).toContain("n-0007");
    }, 120_000);

    test("an untracked and an ignored note are never taken for clean; a staged note, its commit, a rename and a reset are followed", async () => {
      const { repo, git, write } = notesRepo(size);
      await search(repo, "draft");
      writeFileSync(join(repo, ".gitignore"), "notes/n-9002.md\n");
      writeFileSync(join(repo, "notes", "n-9001.md"), loose("Loose", "first draft"));
      writeFileSync(join(repo, "notes", "n-9002.md"), loose("Hidden", "ignored draft"));
      for (let i = 0; i < 2; i++)
        expect(await search(repo, "draft")).toEqual([
          ["n-9001", "Loose"],
          ["n-9002", "Hidden"],
        ]);
      writeFileSync(join(repo, "notes", "n-9001.md"), loose("Loose", "second version"));
      writeFileSync(join(repo, "notes", "n-9002.md"), loose("Hidden", "second version"));
      expect(await search(repo, "draft")).toEqual([]);
      write("n-0009", "Zeppelin crew", "zeppelin crew rota");
      git("add", "notes/n-0009.md");
      expect((await search(repo, "zeppelin crew")).map((h) => h[0])).toEqual(["n-0009"]);
      git("commit", "-qm", "crew");
      expect((await search(repo, "zeppelin crew")).map((h) => h[0])).toEqual(["n-0009"]);
      git("mv", "notes/n-0012.md", "notes/n-5012.md"); // a staged rename: both its paths change
      const renamed = async () => (await ids(repo)).filter((id) => id === "n-0012" || id === "n-5012");
      expect(await renamed()).toEqual(["n-5012"]);
      git("reset", "-q", "--hard", "HEAD~1");
      expect(await search(repo, "zeppelin crew")).toEqual([]);
      expect(await renamed()).toEqual(["n-0012"]);
    }, 120_000);
  });
}
