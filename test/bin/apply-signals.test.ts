/**
 * `apply` on SIGTERM and SIGINT, through the compiled binaries: it stops
 * claiming items, cancels the one it holds before that one executes (or lets
 * its execution finish), and answers CANCELLED with every item's report —
 * applied, or not attempted — then exits 130. A re-apply does the rest and
 * executes nothing twice (the ledger's action log says so). Each apply's
 * executions are slowed (a test build failpoint) so the signal lands mid-plan.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { testBinary } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { rounds } from "../helpers/rounds.ts";
import { until } from "../helpers/mcp-child.ts";
import {
  actionLog,
  finishApply,
  planAndReview,
  removeWorkspaces,
  snapshot,
  spawnApply,
  workspace,
  type Workspace,
} from "../helpers/mutation.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

const ROUNDS = rounds(4, 12);
/** Each execution waits this long first: the signal finds the apply between items or holding one. */
const SLOW = { AGENT_KIT_FAILPOINT: "delay-execute:250" };

/** The ledger's own count of what an apply has done so far: items claimed, and executions logged. */
function ledgerCounts(ws: Workspace): { claimed: number; executed: number } {
  const path = join(ws.run, "ledger.sqlite");
  if (!existsSync(path)) return { claimed: 0, executed: 0 };
  const db = new Database(path, { readonly: true });
  try {
    const one = (sql: string) => (db.query(sql).get() as { n: number }).n;
    return {
      claimed: one("SELECT count(*) AS n FROM action_items"),
      executed: one("SELECT count(*) AS n FROM action_log WHERE executed"),
    };
  } catch {
    return { claimed: 0, executed: 0 }; // not made yet
  } finally {
    db.close();
  }
}

const leftovers = (dir: string): string[] =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".apply-tmp"));

/** Every item executed exactly once over all applies so far, by the action log. */
async function executedOnce(ws: Workspace, ids: readonly string[]): Promise<void> {
  const rows = (await actionLog(ws)).filter((r) => r.executed);
  expect(rows.map((r) => r.item).sort()).toEqual([...ids].sort());
}

describe("apply on a signal", () => {
  const measured: number[] = [];
  afterAll(() => {
    if (measured.length)
      console.log(
        `apply on a signal: ${measured.length} rounds, exit after ${Math.min(...measured)}–${Math.max(...measured)} ms (the contract's bound: 2000 ms)`,
      );
  }, SLOW_HOOK);

  for (let round = 0; round < ROUNDS; round++) {
    const signal = round % 2 === 0 ? "SIGTERM" : "SIGINT";
    const after = round % 4; // executions logged before the signal is sent
    test(`round ${round + 1}: ${signal} after ${after} execution(s): CANCELLED with every item's report, exit 130; a re-apply does the rest, nothing twice`, async () => {
      const ws = await workspace({ pages: 4 });
      const ids: string[] = (await planAndReview(ws)).items.map((it: any) => it.id);
      expect(ids.length).toBeGreaterThan(after + 1);
      const p = spawnApply(testBinary("seo"), ws.run, { ...ws.env, ...SLOW });
      // The signal lands while an item is in hand, after `after` items were executed.
      const inHand = () => {
        const c = ledgerCounts(ws);
        return c.executed >= after && c.claimed > c.executed;
      };
      await until(inHand, 60_000);
      const sent = performance.now();
      p.kill(signal);
      const { code, json } = await finishApply(p);
      const ms = Math.round(performance.now() - sent);
      measured.push(ms);
      expect(code).toBe(130);
      expect(json.error.code).toBe("CANCELLED");
      const items: any[] = json.error.detail.items;
      expect(items.map((it) => it.id)).toEqual(ids);
      const applied = items.filter((it) => it.outcome === "applied");
      const rest = items.filter((it) => it.outcome !== "applied");
      expect(applied.length).toBeGreaterThanOrEqual(after);
      expect(rest.length).toBeGreaterThan(0);
      for (const it of applied) expect([it.executed, it.error]).toEqual([true, null]);
      for (const it of rest)
        expect([it.outcome, it.executed, it.error.code, it.error.message.startsWith("not attempted")]).toEqual([
          "skipped",
          false,
          "CANCELLED",
          true,
        ]);
      // The plan order holds: applied items first, then the ones not attempted.
      expect(items.findIndex((it) => it.outcome !== "applied")).toBe(applied.length);
      expect(json.error.detail.executed).toBe(applied.length);
      await executedOnce(
        ws,
        applied.map((it) => it.id),
      );
      // Nothing half-written, nothing left held: no temp file, and the next apply needs no takeover.
      expect(leftovers(ws.site)).toEqual([]);
      const again = await ws.seo(["apply", "--plan", ws.run]);
      expect(again.code).toBe(0);
      expect(again.json.data.items.map((it: any) => it.outcome)).toEqual(
        items.map((it) => (it.outcome === "applied" ? "already-applied" : "applied")),
      );
      await executedOnce(ws, ids);
      console.log(
        `round ${round + 1}: ${signal} after ${after}: exit ${code} in ${ms} ms; ${applied.length} applied, ${rest.length} not attempted; re-apply: ${again.json.data.executed} executed`,
      );
    }, 120_000);
  }

  // An execution in progress when the signal comes (held at its fence, its temp file written): let finish when it
  // ends within the wind-down, else left held for the next apply to reconcile. Either way no item twice.
  for (const [i, [hold, finishes]] of [
    [400, true],
    [400, true],
    [5000, false],
    [5000, false],
  ].entries()) {
    const signal = i % 2 === 0 ? "SIGTERM" : "SIGINT";
    test(`${signal} during an execution that takes ${hold} ms more: ${finishes ? "it finishes and is reported applied" : "the answer does not wait past the wind-down; the re-apply reconciles it"}`, async () => {
      const ws = await workspace({ pages: 4 });
      const ids: string[] = (await planAndReview(ws)).items.map((it: any) => it.id);
      const before = snapshot(ws.site);
      const p = spawnApply(testBinary("seo"), ws.run, { ...ws.env, AGENT_KIT_FAILPOINT: `delay-commit:${hold}` });
      await until(() => leftovers(ws.site).length > 0, 60_000);
      const sent = performance.now();
      p.kill(signal);
      const { code, json } = await finishApply(p);
      const ms = Math.round(performance.now() - sent);
      expect(code).toBe(130);
      const items: any[] = json.error.detail.items;
      expect(items.map((it) => it.id)).toEqual(ids);
      const inHand = items[0]!;
      if (finishes) expect([inHand.outcome, inHand.executed]).toEqual(["applied", true]);
      else {
        expect([inHand.outcome, inHand.executed, inHand.error.code]).toEqual(["in-progress", false, "CANCELLED"]);
        // Cut short before its rename: every page as it was; only the item's own temp file is left, for the next apply.
        const after = snapshot(ws.site);
        expect(Object.keys(after).filter((f) => !f.endsWith(".apply-tmp"))).toEqual(Object.keys(before));
        for (const f of Object.keys(before)) expect(after[f] === before[f]).toBe(true);
      }
      for (const it of items.slice(1)) expect([it.outcome, it.error.code]).toEqual(["skipped", "CANCELLED"]);
      const again = await ws.seo(["apply", "--plan", ws.run]);
      expect(again.code).toBe(0);
      expect(again.json.data.items[0].outcome).toBe(finishes ? "already-applied" : "applied");
      await executedOnce(ws, ids);
      expect(leftovers(ws.site)).toEqual([]);
      console.log(`${signal}, an execution ${hold} ms from done: exit ${code} in ${ms} ms; the item ${inHand.outcome}`);
    }, 120_000);
  }

  test("a second signal ends it at once; the re-apply still executes each item exactly once", async () => {
    const ws = await workspace({ pages: 4 });
    const ids: string[] = (await planAndReview(ws)).items.map((it: any) => it.id);
    const p = spawnApply(testBinary("seo"), ws.run, { ...ws.env, ...SLOW });
    await until(() => ledgerCounts(ws).executed >= 1 && ledgerCounts(ws).claimed > ledgerCounts(ws).executed, 60_000);
    p.kill("SIGTERM");
    p.kill("SIGTERM");
    const { code } = await finishApply(p);
    expect(code).toBe(130);
    const again = await ws.seo(["apply", "--plan", ws.run]);
    expect(again.code).toBe(0);
    await executedOnce(ws, ids);
    expect(leftovers(ws.site)).toEqual([]);
  }, 120_000);
});
