/**
 * Hints that point at the fix, through the compiled binaries: a stray word
 * names the required flag still missing; the action log names the OS user
 * when $USER is unset; the gate's APPROVAL_REQUIRED hint says what makes an
 * approval a person's (their key), not a terminal `gate approve` never asks for.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { hostname } from "node:os";
import { binary, run } from "../helpers/bin.ts";
import { actionLog, planAndReview, removeWorkspaces, workspace, writePolicy } from "../helpers/mutation.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

describe("a word where a flag belongs", () => {
  test("brain search canonical: the hint names --query, the required flag missing, with the word as its value", async () => {
    const r = await run(binary("brain"), ["search", "canonical", "--json"]);
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe("USAGE");
    expect(r.json.error.hint).toContain("--query=canonical");
    expect(r.json.error.hint).not.toContain("--repo=VALUE");
  });

  test("with every required flag given, the hint still shows the flag form", async () => {
    const r = await run(binary("brain"), ["search", "--query", "x", "stray", "--json"]);
    expect(r.json.error.hint).toMatch(/--[a-z-]+=VALUE/);
  });
});

describe("who applied", () => {
  test("$USER unset: the action log names the OS user the process runs as, never unknown", async () => {
    const ws = await workspace();
    await planAndReview(ws);
    expect((await ws.seo(["apply", "--plan", ws.run])).code).toBe(0); // baseEnv sets no USER
    const user = Bun.spawnSync(["id", "-un"]).stdout.toString().trim();
    const actors = new Set((await actionLog(ws)).map((r) => r.actor));
    expect([...actors]).toEqual([`${user}@${hostname()}`]);
  }, 120_000);
});

describe("a plan the policy does not cover", () => {
  test("the hint names gate approve and the approver's key, and asks for no terminal", async () => {
    const ws = await workspace();
    writePolicy(ws.dir, "p1", { "set-lang": { auto_approve: false } }); // the workspace's own policy file, rewritten
    expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
    const g = await ws.gate(["review", "--plan", ws.run]);
    expect(g.json.error?.code).toBe("APPROVAL_REQUIRED");
    expect(g.json.error.hint).toContain(`gate approve --plan ${ws.run}`);
    expect(g.json.error.hint).toContain("AGENT_APPROVER_KEY");
    expect(g.json.error.hint).not.toContain("terminal");
  }, 120_000);
});
