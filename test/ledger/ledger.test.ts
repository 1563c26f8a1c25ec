/** The ledger's semantics, the same suite on both engines: a real SQLite file and a real PostgreSQL server. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClaimRequest, Ledger } from "../../src/ledger/ledger.ts";
import { openLedger } from "../../src/ledger/open.ts";
import { postgresUrl } from "../helpers/postgres.ts";

const sqliteFile = join(mkdtempSync(join(tmpdir(), "ledger-")), "ledger.sqlite");
const ENGINES: Record<string, () => Promise<Ledger>> = {
  sqlite: () => openLedger(undefined, sqliteFile),
  postgres: () => openLedger(postgresUrl(), ""),
};

let n = 0;
const request = (over: Partial<ClaimRequest> = {}): ClaimRequest => ({
  key: `k-${process.pid}-${Date.now()}-${n++}`,
  fingerprint: "f1",
  tool: "t",
  action: "a",
  plan: "p",
  item: "i",
  owner: "elsewhere/1/a",
  leaseMs: 60_000,
  now: Date.now(),
  ...over,
});

for (const [engine, open] of Object.entries(ENGINES)) {
  describe(`the ${engine} ledger`, () => {
    test("intent first; the same key elsewhere is busy while the lease runs", async () => {
      const l = await open();
      const r = request();
      expect(await l.claim(r)).toEqual({ kind: "acquired", takeover: false, previousOwner: null });
      expect((await l.item(r.key))?.state).toBe("intent");
      const other = await l.claim({ ...r, owner: "elsewhere/2/b" });
      expect(other.kind).toBe("busy");
      await l.close();
    });

    test("a lease that ran out is taken over, and the caller is told to reconcile", async () => {
      const l = await open();
      const r = request({ leaseMs: 1 });
      await l.claim(r);
      const taken = await l.claim({ ...r, owner: "elsewhere/3/c", now: r.now + 10 });
      expect(taken).toEqual({ kind: "acquired", takeover: true, previousOwner: r.owner });
      expect(await l.settle(r.key, r.owner, "applied", {}, r.now + 20)).toBe(false); // the old owner lost it
      expect(await l.settle(r.key, "elsewhere/3/c", "applied", { n: 1 }, r.now + 20)).toBe(true);
      await l.close();
    });

    test("an intent whose owner process on this host is gone is taken over at once", async () => {
      const l = await open();
      const dead = Bun.spawnSync(["true"]).pid;
      const r = request({ owner: `${(await import("node:os")).hostname()}/${dead}/x` });
      await l.claim(r);
      const taken = await l.claim({ ...r, owner: "elsewhere/4/d" });
      expect(taken.kind).toBe("acquired");
      await l.close();
    });

    test("a settled key returns its stored outcome, failure included", async () => {
      const l = await open();
      const r = request();
      await l.claim(r);
      await l.settle(r.key, r.owner, "failed", { error: { code: "UPSTREAM_ERROR", message: "boom" } }, r.now);
      const again = await l.claim({ ...r, owner: "elsewhere/5/e" });
      expect(again).toMatchObject({ kind: "settled", outcome: "failed", result: { error: { message: "boom" } } });
      await l.close();
    });

    test("the same key with other params is a conflict", async () => {
      const l = await open();
      const r = request();
      await l.claim(r);
      expect(await l.claim({ ...r, fingerprint: "f2" })).toEqual({ kind: "conflict", fingerprint: "f1" });
      await l.close();
    });

    test("a released intent can be claimed afresh; the action log reads back in order", async () => {
      const l = await open();
      const r = request();
      await l.claim(r);
      await l.release(r.key, r.owner);
      expect(await l.item(r.key)).toBeNull();
      expect((await l.claim({ ...r, owner: "elsewhere/6/f" })).kind).toBe("acquired");
      const plan = `plan-${r.key}`;
      for (const outcome of ["applied", "reconciled"])
        await l.log({ at: r.now, actor: "a", tool: "t", action: "x", plan, item: "i", key: r.key, outcome, executed: outcome === "applied", startedAt: r.now, finishedAt: r.now, detail: { outcome } });
      const rows = await l.actions({ plan });
      expect(rows.map((x) => [x.outcome, x.executed])).toEqual([["applied", true], ["reconciled", false]]);
      await l.close();
    });

    test("migrations run once: opening again finds the schema in place", async () => {
      const a = await open();
      await a.close();
      const b = await open();
      expect(await b.item("none")).toBeNull();
      const versions = b.engine === "sqlite"
        ? new (await import("bun:sqlite")).Database(sqliteFile).query("SELECT version FROM ledger_migrations").all()
        : await new Bun.SQL(postgresUrl())`SELECT version FROM ledger_migrations`;
      expect(versions.map((v: any) => v.version)).toEqual([1]);
      await b.close();
    });
  });
}
