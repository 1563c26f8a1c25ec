/**
 * verify runs a tool's own write path through the gate: with a scratch key and
 * a scratch policy of its own it approves the plans the tool's examples make,
 * so a list only those writes fill is proven bounded (contract §6), and the
 * tool's apply is probed on its own approved plans (contract §8): applied
 * twice, past its expiry, and with a byte of plan.json changed.
 * test/fixtures/todo is a small kit tool whose only long list is filled that
 * way; with TODO_DEFECT set, its apply is a hand-written one breaking one rule
 * of §8 each, which exactly its check must catch.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildTool } from "../../src/author/build/index.ts";
import { binary, root, run } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const DEFECTS = { reapply: "plans.reapply", expired: "plans.expiry", checksum: "plans.checksum" } as const;

interface Check {
  id: string;
  status: string;
  note: string | null;
  evidence: { what: string }[];
}
const reports = new Map<string, { ok: boolean; checks: Check[] }>();
let dir = "";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "todo-"));
  const built = (await buildTool(join(root, "test", "fixtures", "todo"), join(dir, "bin"))).binary;
  const launchers = ["none", ...Object.keys(DEFECTS)].map((defect) => {
    mkdirSync(join(dir, defect));
    const launcher = join(dir, defect, "todo");
    writeFileSync(launcher, `#!/bin/sh\nTODO_DEFECT='${defect}' exec '${built}' "$@"\n`);
    chmodSync(launcher, 0o755);
    return [defect, launcher] as const;
  });
  // One verify run for the four: each fact about them established once.
  const r = await run(
    binary("verify"),
    ["--json", "--strict", "--no-golden", "--gate", binary("gate"), ...launchers.map(([, l]) => l)],
    { cwd: root, timeoutMs: 600_000 },
  );
  const tools = (r.json.data ?? r.json.error.detail).tools as { ok: boolean; checks: Check[] }[];
  for (const [i, [defect]] of launchers.entries()) reports.set(defect, tools[i]!);
}, 660_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }), SLOW_HOOK);

const check = (defect: string, id: string): Check => reports.get(defect)!.checks.find((c) => c.id === id)!;
const failing = (defect: string) =>
  reports
    .get(defect)!
    .checks.filter((c) => c.status === "fail")
    .map((c) => c.id);

describe("a kit tool whose only long list its own create → gate → apply fills", () => {
  test("lists.bounded is proven on the data verify had the tool write, approved by its scratch gate policy", () => {
    expect(failing("none")).toEqual([]);
    expect(reports.get("none")!.ok).toBe(true);
    const bounded = check("none", "lists.bounded");
    expect(bounded.status).toBe("pass");
    expect(bounded.note).toContain("'item list': data made by its own item create → apply examples");
  });

  test("its apply passes the §8 probes on its own approved plans: twice, expired, changed", () => {
    for (const id of Object.values(DEFECTS)) expect(check("none", id).status).toBe("pass");
  });
});

describe("an apply that breaks one rule of §8 is caught by exactly its check", () => {
  for (const [defect, id] of Object.entries(DEFECTS))
    test(`${defect}: ${id}`, () => {
      expect(failing(defect)).toEqual([id]);
      expect(check(defect, "lists.bounded").status).toBe("pass");
    });
});
