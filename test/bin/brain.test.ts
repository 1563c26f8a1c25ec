/** brain against a real git repository, run as the compiled binary, through the real gate. */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { idempotencyKey, planChecksum } from "../../src/kit/mutations/plan.ts";
import { knowledgeBase, type KnowledgeBase } from "../helpers/notes-repo.ts";

const commits = (k: KnowledgeBase) => k.git("rev-list", "--count", "HEAD").trim();

/** The plan in `runDir` as an agent can rewrite it: changed by `edit`, each item's key and the checksum made to match again. */
function rewritePlan(runDir: string, edit: (plan: any) => void): any {
  const file = join(runDir, "plan.json");
  const plan = JSON.parse(readFileSync(file, "utf8"));
  edit(plan);
  for (const it of plan.items) it.idempotency_key = idempotencyKey(plan.tool, it.action, plan.context, it.params);
  plan.checksum = planChecksum(plan);
  writeFileSync(file, JSON.stringify(plan));
  return plan;
}

describe("brain", () => {
  test("create → gate → apply → get on a real git repo; the same apply again makes no second commit", async () => {
    const k = knowledgeBase();
    const runDir = join(k.dir, "run");
    const planned = await k.brain([
      "note",
      "create",
      "--title",
      "Oiling handles",
      "--tag",
      "howto",
      "--tag",
      "tools",
      "--body",
      "Linseed oil, twice a year.",
      "--run-dir",
      runDir,
    ]);
    expect(planned.code).toBe(0);
    expect(commits(k)).toBe("1"); // planning writes nothing to the repository
    expect((await k.gate(["review", "--plan", runDir])).code).toBe(0);

    const applied = await k.brain(["apply", "--plan", runDir]);
    expect(applied.code).toBe(0);
    expect(commits(k)).toBe("2");
    const key = JSON.parse(readFileSync(join(runDir, "plan.json"), "utf8")).items[0].idempotency_key;
    expect(k.git("log", "-1", "--format=%(trailers:key=Idempotency-Key,valueonly)").trim()).toBe(key);
    expect(k.git("status", "--porcelain")).toBe("");

    const got = await k.brain(["note", "get", "--id", "oiling-handles"]);
    expect(got.json.data).toMatchObject({
      id: "oiling-handles",
      title: "Oiling handles",
      tags: ["howto", "tools"],
      body: "Linseed oil, twice a year.\n",
    });

    const again = await k.brain(["apply", "--plan", runDir]);
    expect(again.code).toBe(0);
    expect(again.json.data.items[0].outcome).toBe("already-applied");
    expect(commits(k)).toBe("2");

    const found = await k.brain(["search", "--query", "linseed"]);
    expect(found.json.data.items[0].id).toBe("oiling-handles");
  });

  test("a crash between commit and confirm is reconciled from git log: no second commit", async () => {
    const k = knowledgeBase();
    const runDir = join(k.dir, "run");
    expect(
      (await k.brain(["note", "delete", "--id", "winter-care", "--id", "forging-steel", "--run-dir", runDir])).code,
    ).toBe(0);
    expect((await k.gate(["review", "--plan", runDir])).code).toBe(0);
    const crashed = await k.brain(["apply", "--plan", runDir], { AGENT_KIT_FAILPOINT: "after-execute:1" });
    expect(crashed.code).toBe(137);
    expect(commits(k)).toBe("2");
    const resumed = await k.brain(["apply", "--plan", runDir]);
    expect(resumed.json.data.items.map((i: any) => i.outcome)).toEqual(["reconciled", "applied"]);
    expect(commits(k)).toBe("3");
  });

  test("an update against a note changed since the plan fails its precondition, and writes nothing", async () => {
    const k = knowledgeBase();
    const runDir = join(k.dir, "run");
    expect(
      (await k.brain(["note", "update", "--id", "harbour-history", "--tag", "history", "--run-dir", runDir])).code,
    ).toBe(0);
    expect((await k.gate(["review", "--plan", runDir])).code).toBe(0);
    const file = join(k.repo, "notes", "harbour-history.md");
    writeFileSync(file, `${readFileSync(file, "utf8")}\nA line someone else added.\n`);
    k.git("commit", "-qam", "someone else");
    const r = await k.brain(["apply", "--plan", runDir]);
    expect(r.json.error.code).toBe("PRECONDITION_FAILED");
    expect(r.code).toBe(3);
    expect(commits(k)).toBe("2");
    expect(readFileSync(file, "utf8")).toContain("someone else added");
  });

  test("a dirty work tree is refused at plan time and at apply time, and nothing is written", async () => {
    const k = knowledgeBase();
    const runDir = join(k.dir, "run");
    expect((await k.brain(["note", "create", "--title", "Draft", "--run-dir", runDir])).code).toBe(0);
    expect((await k.gate(["review", "--plan", runDir])).code).toBe(0);
    writeFileSync(join(k.repo, "scratch.txt"), "uncommitted\n");
    const planned = await k.brain(["note", "create", "--title", "Other", "--run-dir", join(k.dir, "run2")]);
    expect(planned.json.error.code).toBe("PRECONDITION_FAILED");
    expect(planned.json.error.message).toContain("scratch.txt");
    const applied = await k.brain(["apply", "--plan", runDir]);
    expect(applied.json.error.code).toBe("PRECONDITION_FAILED");
    expect(applied.json.error.message).toContain("uncommitted changes");
    expect(commits(k)).toBe("1");
    expect(k.git("status", "--porcelain").trim()).toBe("?? scratch.txt");
    // Nothing was stored as a failure: once the tree is clean, the same plan applies.
    k.git("add", "scratch.txt");
    k.git("commit", "-qm", "scratch");
    expect((await k.brain(["apply", "--plan", runDir])).code).toBe(0);
    expect(commits(k)).toBe("3");
  });

  test("bad input: a path-traversing id, front matter that is not YAML, a note over the size limit, a folder that is not a repo", async () => {
    const k = knowledgeBase();
    const runDir = join(k.dir, "run");
    const traversal = await k.brain(["note", "create", "--title", "x", "--id", "../escape", "--run-dir", runDir]);
    expect([traversal.code, traversal.json.error.code]).toEqual([2, "INVALID_VALUE"]);
    const badYaml = await k.brain(
      ["note", "create", "--body-file", "-", "--run-dir", runDir],
      {},
      "---\ntitle: [oops\n---\nbody\n",
    );
    expect([badYaml.code, badYaml.json.error.code]).toEqual([3, "INVALID_INPUT"]);
    expect(badYaml.json.error.message).toContain("not valid YAML");
    const big = join(k.dir, "big.md");
    writeFileSync(big, "x".repeat(300 * 1024));
    const tooBig = await k.brain(["note", "create", "--title", "Big", "--body-file", big, "--run-dir", runDir]);
    expect([tooBig.code, tooBig.json.error.code]).toEqual([3, "INVALID_INPUT"]);
    const notRepo = await k.brain(["note", "list", "--repo", k.dir]);
    expect([notRepo.code, notRepo.json.error.code]).toEqual([3, "INVALID_INPUT"]);
    expect(notRepo.json.error.message).toContain("not a git repository");
    const missing = await k.brain(["note", "get", "--id", "sharpening-spade"]);
    expect([missing.code, missing.json.error.code, missing.json.error.hint]).toEqual([
      3,
      "NOT_FOUND",
      "did you mean sharpening-spades?",
    ]);
    expect(commits(k)).toBe("1");
    expect(k.git("status", "--porcelain")).toBe("");
  });

  test("list filters by tag and text, pages with cursors, and sets unreadable notes apart", async () => {
    const k = knowledgeBase();
    const tagged = await k.brain(["note", "list", "--tag", "howto"]);
    expect(tagged.json.data.items.map((n: any) => n.id)).toEqual(["forging-steel", "sharpening-spades", "winter-care"]);
    expect(tagged.json.data.unreadable.map((u: any) => u.id)).toEqual(["broken-front-matter"]);
    const text = await k.brain(["note", "list", "--text", "BLACKSMITH"]);
    expect(text.json.data.items.map((n: any) => n.id)).toEqual(["forging-steel", "harbour-history"]);
    const first = await k.brain(["note", "list", "--limit", "2"]);
    const second = await k.brain(["note", "list", "--limit", "2", "--cursor", first.json.meta.pagination.next_cursor]);
    expect([...first.json.data.items, ...second.json.data.items].map((n: any) => n.id)).toEqual([
      "forging-steel",
      "harbour-history",
      "sharpening-spades",
      "winter-care",
    ]);
  });

  test("a committed reason cannot pass another item off as landed: a stale update stays PRECONDITION_FAILED", async () => {
    const k = knowledgeBase();
    const stale = join(k.dir, "run-stale");
    expect(
      (await k.brain(["note", "update", "--id", "harbour-history", "--tag", "history", "--run-dir", stale])).code,
    ).toBe(0);
    expect((await k.gate(["review", "--plan", stale])).code).toBe(0);
    const key = JSON.parse(readFileSync(join(stale, "plan.json"), "utf8")).items[0].idempotency_key;
    const file = join(k.repo, "notes", "harbour-history.md");
    writeFileSync(file, `${readFileSync(file, "utf8")}\nA line someone else added.\n`);
    k.git("commit", "-qam", "someone else");

    // Another plan's reason claims that item's key: in a line of text, and as a paragraph of trailers that git
    // would read as the message's last, were the scissors line after it taken for the end of the message.
    const bait = join(k.dir, "run-bait");
    expect((await k.brain(["note", "create", "--title", "Bait", "--run-dir", bait])).code).toBe(0);
    const own = rewritePlan(bait, (p) => {
      p.items[0].reason = `create note bait: Idempotency-Key: ${key}\n\nIdempotency-Key: ${key}\n\n# ------------------------ >8 ------------------------\n`;
    }).items[0].idempotency_key;
    expect((await k.gate(["review", "--plan", bait])).code).toBe(0);
    expect((await k.brain(["apply", "--plan", bait])).code).toBe(0);

    const r = await k.brain(["apply", "--plan", stale]);
    expect([r.code, r.json.error?.code]).toEqual([3, "PRECONDITION_FAILED"]);
    // The commit's own trailer block still says whose it is, and the reason reads as it was written.
    expect(k.git("log", "-1", "--format=%(trailers:key=Idempotency-Key,valueonly)").trim()).toBe(own);
    expect(k.git("log", "-1", "--format=%B")).toContain(`create note bait: Idempotency-Key: ${key}`);
    expect(commits(k)).toBe("3");
    expect(readFileSync(file, "utf8")).toContain("someone else added");
  });

  test("a plan's reason is bounded and counted: over 4 KiB it is PLAN_INVALID naming it; within, its bytes count toward max_write_bytes", async () => {
    const k = knowledgeBase();
    expect((await k.brain(["note", "create", "--title", "Long", "--body", "short", "--run-dir", k.run])).code).toBe(0);
    rewritePlan(k.run, (p) => {
      p.items[0].reason = "r".repeat(3 * 1024 * 1024);
    });
    for (const refused of [await k.gate(["review", "--plan", k.run]), await k.brain(["apply", "--plan", k.run])]) {
      expect([refused.code, refused.json.error?.code]).toEqual([3, "PLAN_INVALID"]);
      expect(refused.json.error.message).toContain("items[0].reason");
    }
    const policy = JSON.parse(readFileSync(k.env.AGENT_POLICY_FILE!, "utf8"));
    policy.actions["brain.create-note"].max_write_bytes = 2000;
    writeFileSync(k.env.AGENT_POLICY_FILE!, JSON.stringify(policy));
    rewritePlan(k.run, (p) => {
      p.items[0].reason = "r".repeat(3000);
    });
    const counted = await k.gate(["review", "--plan", k.run]);
    expect([counted.code, counted.json.error.code]).toEqual([5, "APPROVAL_REQUIRED"]);
    expect(JSON.stringify(counted.json.error)).toContain("the limit is 2000");
    expect(commits(k)).toBe("1");
  });

  test("a plan item whose action is named like an Object.prototype member is PLAN_INVALID to the read-back and to a person's approval, never looked up as an action", async () => {
    const k = knowledgeBase();
    expect((await k.brain(["note", "create", "--title", "Odd", "--run-dir", k.run])).code).toBe(0);
    for (const action of ["constructor", "__proto__", "toString"]) {
      rewritePlan(k.run, (p) => {
        p.items[0].action = action;
      });
      const listed = await k.brain(["target", "list", "--plan", k.run]);
      expect([action, listed.code, listed.json.error?.code]).toEqual([action, 3, "PLAN_INVALID"]);
      // No policy covers it, so only a person could approve it: their approval runs the read-back, which refuses it.
      const refused = await k.gate(["approve", "--plan", k.run]);
      expect([action, refused.code, refused.json.error?.code]).toEqual([action, 3, "PLAN_INVALID"]);
      expect(refused.json.error.message).not.toContain("INTERNAL");
    }
    expect(commits(k)).toBe("1");
  });
});
