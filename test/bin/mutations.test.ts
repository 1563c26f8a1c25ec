/**
 * plan → gate → apply against the compiled binaries, on both ledger engines:
 * exactly-once across a crash between execute and confirm, and across two
 * racing applies; resumption; the action log. The outcomes of a clean apply
 * are tested in-process in test/seam/apply.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { baseEnv, testBinary } from "../helpers/bin.ts";
import {
  actionLog,
  LEDGER_ENGINES,
  planAndReview,
  removeWorkspaces,
  snapshot,
  workspace,
} from "../helpers/mutation.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

/** The files a clean apply of the same plan on a twin site leaves. */
async function expectedAfterCleanApply(opts: { pages?: number }): Promise<Record<string, string>> {
  const twin = await workspace(opts);
  await planAndReview(twin);
  const r = await twin.seo(["apply", "--plan", twin.run]);
  expect(r.json.data.status).toBe("applied");
  return snapshot(twin.site);
}

for (const [engine, ledgerUrl] of Object.entries(LEDGER_ENGINES)) {
  describe(`apply through the ${engine} ledger`, () => {
    test("SIGKILL after execute and before confirm: the re-run reconciles, every item lands exactly once", async () => {
      const expected = await expectedAfterCleanApply({});
      const ws = await workspace({ ledgerUrl: ledgerUrl() });
      const plan = await planAndReview(ws);
      const crashed = await ws.seo(["apply", "--plan", ws.run], { AGENT_KIT_FAILPOINT: "after-execute:3" });
      expect(crashed.code).toBe(137); // killed: no envelope, no confirm
      expect(crashed.stdout).toBe("");

      const resumed = await ws.seo(["apply", "--plan", ws.run]);
      expect(resumed.json.error).toBeNull();
      const outcomes = resumed.json.data.items.map((i: any) => i.outcome);
      expect(outcomes.slice(0, 3)).toEqual(["already-applied", "already-applied", "reconciled"]);
      expect(outcomes.slice(3).every((o: string) => o === "applied")).toBe(true);
      expect(snapshot(ws.site)).toEqual(expected); // not doubled: the same bytes as one clean apply

      const log = await actionLog(ws);
      const byKey = Map.groupBy(log, (r: any) => r.idempotency_key);
      expect(byKey.size).toBe(plan.items.length);
      for (const rows of byKey.values()) expect(rows.length).toBe(1);
      expect(log.filter((r) => r.executed).length).toBe(plan.items.length - 1);
      expect(log.filter((r) => r.outcome === "reconciled").length).toBe(1);
    }, 120_000);

    test("two applies racing on one plan execute each item once", async () => {
      const pages = 40;
      const expected = await expectedAfterCleanApply({ pages });
      const ws = await workspace({ ledgerUrl: ledgerUrl(), pages });
      const plan = await planAndReview(ws);
      expect(plan.total).toBe(pages * 2);
      // Each execution takes 10 ms, as a real API call would, so the two runs overlap. One waits on
      // items the other holds (--wait); the other skips them (IN_PROGRESS) and runs ahead.
      const spawn = (wait: boolean) =>
        Bun.spawn([testBinary("seo"), "apply", "--plan", ws.run, "--json", ...(wait ? ["--wait"] : [])], {
          env: baseEnv({ ...ws.env, AGENT_KIT_FAILPOINT: "delay-execute:10" }),
          stdout: "pipe",
          stderr: "pipe",
        });
      const racers = [spawn(true), spawn(false)];
      const results = await Promise.all(
        racers.map(async (p) => ({ code: await p.exited, out: JSON.parse(await new Response(p.stdout).text()) })),
      );
      expect(results[0]!.code).toBe(0);
      expect([0, 4]).toContain(results[1]!.code);
      const executedBy = results.map((r) => {
        const report = r.out.data ?? r.out.error?.detail;
        if (!report)
          throw new Error(`an apply exited ${r.code} without its per-item report: ${JSON.stringify(r.out.error)}`);
        return report.executed as number;
      });
      expect(executedBy[0]! + executedBy[1]!).toBe(plan.total);
      const settled = await ws.seo(["apply", "--plan", ws.run]);
      expect(settled.json.data.executed).toBe(0);
      expect(snapshot(ws.site)).toEqual(expected);
      const log = await actionLog(ws);
      expect(log.filter((r) => r.executed).length).toBe(plan.total);
      expect(new Set(log.map((r) => r.idempotency_key)).size).toBe(plan.total);
    }, 120_000);
  });
}
