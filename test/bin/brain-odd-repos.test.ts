/**
 * brain on repositories in odd states, through the compiled binary: a notes
 * folder that is a link out of the repository, a merge stopped on
 * conflicts, a tree dirty in the work tree only. Each is a clear error that
 * says the same every time, never a raw git error or conflict markers read
 * as a note.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { knowledgeBase } from "../helpers/notes-repo.ts";

describe("brain on odd repositories", () => {
  test("notes/ linked out of the repository: every command is INVALID_INPUT, not retryable, and apply fails the same way on every run", async () => {
    const k = knowledgeBase();
    const runDir = join(k.dir, "run");
    expect(
      (await k.brain(["note", "create", "--title", "Before the link", "--run-dir", runDir])).json.error,
    ).toBeNull();
    expect((await k.gate(["review", "--plan", runDir])).code).toBe(0);
    // The notes move out, and a link takes their place.
    const outside = mkdtempSync(join(tmpdir(), "outside-"));
    renameSync(join(k.repo, "notes"), join(outside, "notes"));
    symlinkSync(join(outside, "notes"), join(k.repo, "notes"));
    const commands = [
      ["note", "list"],
      ["note", "get", "--id", "harbour-history"],
      ["search", "--query", "harbour"],
      ["note", "create", "--title", "Elsewhere", "--run-dir", join(k.dir, "run2")],
    ];
    for (const args of commands) {
      const r = await k.brain(args);
      expect({
        args,
        code: r.code,
        error: r.json.error?.code,
        retryable: r.json.error?.retryable,
        says: r.json.error?.message.includes("notes/ in"),
      }).toEqual({ args, code: 3, error: "INVALID_INPUT", retryable: false, says: true });
    }
    for (let i = 0; i < 2; i++) {
      const applied = await k.brain(["apply", "--plan", runDir]);
      const item = (applied.json.data ?? applied.json.error.detail)?.items?.[0];
      expect({ code: item?.error?.code ?? applied.json.error.code, executed: item?.executed ?? false }).toEqual({
        code: "INVALID_INPUT",
        executed: false,
      });
    }
    expect(k.git("log", "--oneline").trim().split("\n").length).toBe(1);
  });

  test("a merge stopped on conflicts: reads and plans are CONFLICT naming the files, never the markers as a note", async () => {
    const k = knowledgeBase();
    k.git("checkout", "-q", "-b", "other");
    writeFileSync(join(k.repo, "notes", "harbour-history.md"), "---\ntitle: Harbour history\n---\nTheirs.\n");
    k.git("commit", "-qam", "theirs");
    k.git("checkout", "-q", "main");
    writeFileSync(join(k.repo, "notes", "harbour-history.md"), "---\ntitle: Harbour history\n---\nOurs.\n");
    k.git("commit", "-qam", "ours");
    expect(() => k.git("merge", "-q", "other")).toThrow();
    for (const args of [
      ["note", "get", "--id", "harbour-history"],
      ["note", "list"],
      ["search", "--query", "harbour"],
      ["note", "update", "--id", "harbour-history", "--body", "x", "--run-dir", join(k.dir, "run")],
    ]) {
      const r = await k.brain(args);
      expect({
        args,
        error: r.json.error?.code,
        names: r.json.error?.message.includes("notes/harbour-history.md"),
      }).toEqual({ args, error: "CONFLICT", names: true });
    }
    k.git("merge", "--abort");
    expect((await k.brain(["note", "get", "--id", "harbour-history"])).json.data.body).toContain("Ours.");
  });

  test("a tree changed in the work tree only is refused with every path whole", async () => {
    const k = knowledgeBase();
    writeFileSync(join(k.repo, "notes", "winter-care.md"), "changed by a person\n");
    mkdirSync(join(k.repo, "drafts"));
    writeFileSync(join(k.repo, "drafts", "idea.md"), "new\n");
    const r = await k.brain(["note", "create", "--title", "Another", "--run-dir", join(k.dir, "run")]);
    expect(r.json.error.code).toBe("PRECONDITION_FAILED");
    expect(r.json.error.message).toContain("(notes/winter-care.md, drafts/idea.md)");
  });

  test("a repository another writer holds past the bound: the item is IN_PROGRESS, nothing committed, and the next apply commits it once", async () => {
    const k = knowledgeBase();
    expect((await k.brain(["note", "create", "--title", "Waits its turn", "--run-dir", k.run])).json.error).toBeNull();
    expect((await k.gate(["review", "--plan", k.run])).code).toBe(0);
    // Another writer: the repository's write lock, held by this process.
    const held = new Database(join(k.repo, ".git", "brain-write.lock"), { create: true });
    held.exec("BEGIN IMMEDIATE");
    const busy = await k.brain(["apply", "--plan", k.run], { AGENT_BRAIN_LOCK_WAIT_MS: "300" });
    const item = (busy.json.data ?? busy.json.error.detail).items[0];
    expect([item.outcome, item.executed, item.error.code]).toEqual(["in-progress", false, "IN_PROGRESS"]);
    expect(item.error.message).toContain("another brain process is writing to");
    expect(k.git("rev-list", "--count", "HEAD").trim()).toBe("1");
    held.exec("ROLLBACK");
    held.close();
    const done = await k.brain(["apply", "--plan", k.run]);
    expect(done.json.data.items[0].outcome).toBe("applied");
    expect(k.git("rev-list", "--count", "HEAD").trim()).toBe("2");
    expect(k.git("status", "--porcelain", "--untracked-files=all")).toBe("");
  });
});
