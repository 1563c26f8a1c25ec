/**
 * One gate for every tool: a tool written outside the fleet (test/fixtures/ticket,
 * on the kit's public surface, with an action of its own) goes through the
 * compiled gate exactly as seo does, judged from what its own binary declares;
 * the policy names it by path and sha256. A tool the policy does not name, a
 * binary rebuilt since the policy named it, and a plan outside its roots are
 * refused (POLICY_DENIED) before anything is approved.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildTool } from "../../src/author/build/index.ts";
import { binary, root, run } from "../helpers/bin.ts";
import { APPROVER, gateKeys } from "../helpers/mutation.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const made: string[] = [];
let built = "";

beforeAll(async () => {
  const out = mkdtempSync(join(tmpdir(), "ticket-bin-"));
  made.push(out);
  built = (await buildTool(join(root, "test", "fixtures", "ticket"), out)).binary;
}, 300_000);
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
}, SLOW_HOOK);

const sha256Of = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** A folder holding the ticket binary (bin/ticket), a store, keys and a policy naming the tool by a path relative to the policy. */
function place(policy: (sha: string) => object) {
  const dir = mkdtempSync(join(tmpdir(), "ticket-"));
  made.push(dir);
  mkdirSync(join(dir, "bin"));
  mkdirSync(join(dir, "tickets"));
  const ticket = join(dir, "bin", "ticket");
  copyFileSync(built, ticket);
  const keys = gateKeys();
  writeFileSync(join(dir, "policy.json"), JSON.stringify(policy(sha256Of(ticket))));
  const env = {
    AGENT_GATE_PRIVATE_KEY: keys.privateKey,
    AGENT_GATE_PUBLIC_KEY: keys.publicKey,
    AGENT_POLICY_FILE: join(dir, "policy.json"),
    AGENT_APPROVER_KEY: APPROVER.privateKey,
  };
  // Run from elsewhere: the policy's relative path is read from its own folder, never the caller's.
  const opts = { env, cwd: tmpdir(), timeoutMs: 120_000 };
  return {
    dir,
    ticket: (args: string[]) => run(ticket, [...args, "--json"], opts),
    gate: (args: string[]) => run(binary("gate"), [...args, "--json"], opts),
    create: (id: string) =>
      run(
        ticket,
        [
          "ticket",
          "create",
          "--store",
          join(dir, "tickets"),
          "--id",
          id,
          "--title",
          `ticket ${id}`,
          "--run-dir",
          join(dir, `run-${id}`),
          "--json",
        ],
        opts,
      ),
  };
}

const governed = (auto: boolean) => (sha: string) => ({
  version: "t1",
  max_items: 10,
  actions: { "ticket.open-ticket": { auto_approve: auto, max_write_bytes: 2000 } },
  tools: { ticket: { path: "bin/ticket", sha256: sha } },
  roots: { ticket: ["tickets"] },
  approvers: [{ name: APPROVER.name, public_key: APPROVER.publicKey }],
});

describe("the gate judges a tool from outside the fleet that its policy names", () => {
  test("ticket create → gate review → ticket apply → ticket list shows the new ticket", async () => {
    const w = place(governed(true));
    expect((await w.create("t-1")).code).toBe(0);
    const review = await w.gate(["review", "--plan", join(w.dir, "run-t-1")]);
    expect([review.code, review.json.error, review.json.data?.decision]).toEqual([0, null, "approved"]);
    expect(review.json.data.items.map((i: any) => i.action)).toEqual(["open-ticket"]);
    const applied = await w.ticket(["apply", "--plan", join(w.dir, "run-t-1")]);
    expect([applied.code, applied.json.error]).toEqual([0, null]);
    const listed = await w.ticket(["ticket", "list", "--store", join(w.dir, "tickets")]);
    expect(listed.json.data.items).toEqual([{ id: "t-1", title: "ticket t-1" }]);
  });

  // ticket's own write step does not look before it writes: only the kit's precondition check stands between
  // an approved plan and a file someone else wrote since (seo and brain check again themselves).
  test("a ticket someone else wrote after the review: apply refuses it as a changed target and leaves their file", async () => {
    const w = place(governed(true));
    expect((await w.create("t-9")).code).toBe(0);
    expect((await w.gate(["review", "--plan", join(w.dir, "run-t-9")])).code).toBe(0);
    const theirs = `${JSON.stringify({ id: "t-9", title: "theirs" })}\n`;
    writeFileSync(join(w.dir, "tickets", "t-9.json"), theirs);
    const applied = await w.ticket(["apply", "--plan", join(w.dir, "run-t-9")]);
    expect([applied.code, applied.json.error?.code]).toEqual([3, "PRECONDITION_FAILED"]);
    expect(applied.json.error.detail.items.map((i: any) => [i.outcome, i.executed])).toEqual([["failed", false]]);
    expect(readFileSync(join(w.dir, "tickets", "t-9.json"), "utf8")).toBe(theirs);
  });

  test("an action the policy does not auto-approve waits for a person the policy names; their approval is applied", async () => {
    const w = place(governed(false));
    expect((await w.create("t-2")).code).toBe(0);
    const runDir = join(w.dir, "run-t-2");
    const review = await w.gate(["review", "--plan", runDir]);
    expect([review.code, review.json.error.code]).toEqual([5, "APPROVAL_REQUIRED"]);
    const approved = await w.gate(["approve", "--plan", runDir]);
    expect([approved.code, approved.json.data?.approved_by]).toEqual([0, APPROVER.name]);
    expect((await w.ticket(["apply", "--plan", runDir])).code).toBe(0);
  });
});

describe("the gate refuses what its policy does not govern", () => {
  test("a plan of a tool the policy does not name: POLICY_DENIED, the hint the exact entry to add", async () => {
    const w = place((sha) => ({ ...governed(true)(sha), tools: {} }));
    expect((await w.create("t-3")).code).toBe(0);
    for (const verb of ["review", "approve"]) {
      const r = await w.gate([verb, "--plan", join(w.dir, "run-t-3")]);
      expect([verb, r.code, r.json.error.code]).toEqual([verb, 5, "POLICY_DENIED"]);
      expect(r.json.error.hint).toContain(
        '{"tools":{"ticket":{"path":"./bin/ticket","sha256":"<sha256sum of ./bin/ticket>"}}}',
      );
    }
  });

  test("a binary rebuilt since the policy named it: POLICY_DENIED before it runs, the hint its new sha256", async () => {
    const w = place(governed(true));
    expect((await w.create("t-4")).code).toBe(0);
    writeFileSync(join(w.dir, "bin", "ticket"), '#!/bin/sh\ntouch "$0.ran"\n', { mode: 0o755 });
    const r = await w.gate(["review", "--plan", join(w.dir, "run-t-4")]);
    expect([r.code, r.json.error.code]).toEqual([5, "POLICY_DENIED"]);
    expect(r.json.error.hint).toContain(sha256Of(join(w.dir, "bin", "ticket")));
    expect(() => readFileSync(join(w.dir, "bin", "ticket.ran"))).toThrow();
  });

  test("a plan acting outside the roots the policy names for the tool: POLICY_DENIED", async () => {
    const w = place((sha) => ({ ...governed(true)(sha), roots: { ticket: ["elsewhere"] } }));
    expect((await w.create("t-5")).code).toBe(0);
    const r = await w.gate(["review", "--plan", join(w.dir, "run-t-5")]);
    expect([r.code, r.json.error.code]).toEqual([5, "POLICY_DENIED"]);
    expect(r.json.error.message).toContain("outside the roots");
  });
});

describe("gate init, through the package's command", () => {
  test("writes keys and a complete policy governing the tool by path and hash; its printed lines, pasted, drive agent-cli-kit gate review and apply", async () => {
    const w = place(governed(true));
    const launch = join(root, "src", "author", "launch.js");
    const setup = join(w.dir, "setup");
    const init = await run(
      "node",
      [launch, "gate", "init", "--dir", setup, "--tool", "bin/ticket", "--root", "ticket=tickets", "--json"],
      { cwd: w.dir, timeoutMs: 120_000 },
    );
    expect([init.code, init.json.error, init.json.data?.tools]).toEqual([0, null, ["ticket"]]);
    const policy = JSON.parse(readFileSync(join(setup, "policy.json"), "utf8"));
    expect(policy.tools.ticket).toMatchObject({
      path: "../bin/ticket",
      sha256: sha256Of(join(w.dir, "bin", "ticket")),
    });
    expect(policy.actions).toEqual({ "ticket.open-ticket": { auto_approve: true, max_write_bytes: 100_000 } });
    expect(policy.roots).toEqual({ ticket: ["../tickets"] });
    expect(init.stdout).not.toContain("PRIVATE KEY");
    expect((await w.create("t-6")).code).toBe(0);
    const script = [
      ...init.json.data.env,
      `node ${launch} gate review --plan run-t-6 --json`,
      "bin/ticket apply --plan run-t-6 --json >/dev/null",
      "bin/ticket ticket list --store tickets --json",
    ].join("\n");
    const r = await run("bash", ["-c", script], {
      cwd: w.dir,
      env: { AGENT_POLICY_FILE: "", AGENT_GATE_PRIVATE_KEY: "" },
      timeoutMs: 120_000,
    });
    const [review, listed] = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect([r.code, review.data?.decision, listed.data?.items.map((i: any) => i.id)]).toEqual([0, "approved", ["t-6"]]);
    // Run again over the same folder: keys are never overwritten.
    const again = await run(
      "node",
      [launch, "gate", "init", "--dir", setup, "--tool", "bin/ticket", "--root", "ticket=tickets", "--json"],
      { cwd: w.dir, timeoutMs: 120_000 },
    );
    expect(again.json.error.code).toBe("CONFLICT");
    expect(readFileSync(join(setup, "policy.json"), "utf8")).toBe(`${JSON.stringify(policy, null, 2)}\n`);
  });
});
