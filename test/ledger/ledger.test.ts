/** The ledger's semantics, the same suite on both engines: a real SQLite file and a real PostgreSQL server. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ActionLogRow, ClaimRequest, Fence, Ledger, Outcome } from "../../src/kit/mutations/index.ts";
import { isLedgerFailure, openLedger } from "../../src/features/ledger/index.ts";
import { postgresUrl } from "../helpers/postgres.ts";

/** The clock the ledger stamps its migrations with. */
const CLOCK = { now: () => Date.now() };

const sqliteFile = join(mkdtempSync(join(tmpdir(), "ledger-")), "ledger.sqlite");
const ENGINES: Record<string, () => Promise<Ledger>> = {
  sqlite: () => openLedger(undefined, sqliteFile, CLOCK),
  postgres: () => openLedger(postgresUrl(), "", CLOCK),
};

let n = 0;
const request = (over: Partial<ClaimRequest> = {}): ClaimRequest => ({
  key: `k-${process.pid}-${Date.now()}-${n++}`,
  fingerprint: "f1",
  tool: "t",
  action: "a",
  plan: `p-${process.pid}-${Date.now()}-${n}`,
  item: "i",
  owner: "elsewhere/1/a",
  leaseMs: 60_000,
  now: Date.now(),
  ...over,
});

const logRow = (r: ClaimRequest, outcome: string, executed = outcome === "applied"): ActionLogRow => ({
  at: r.now,
  actor: "a",
  tool: "t",
  action: "x",
  plan: r.plan,
  item: "i",
  key: r.key,
  outcome,
  executed,
  startedAt: r.now,
  finishedAt: r.now,
  detail: { outcome },
});
const fenceOf = (r: ClaimRequest, generation: number, owner = r.owner): Fence => ({ key: r.key, owner, generation });
const settle = (l: Ledger, f: Fence, r: ClaimRequest, outcome: Outcome, result: unknown = {}) =>
  l.settle(f, { outcome, result, now: r.now + 20, log: logRow(r, outcome) });

for (const [engine, open] of Object.entries(ENGINES)) {
  describe(`the ${engine} ledger`, () => {
    test("intent first; the same key elsewhere is busy while the lease runs", async () => {
      const l = await open();
      const r = request();
      expect(await l.claim(r)).toEqual({ kind: "acquired", takeover: false, previousOwner: null, generation: 1 });
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
      expect(taken).toEqual({ kind: "acquired", takeover: true, previousOwner: r.owner, generation: 2 });
      expect(await settle(l, fenceOf(r, 1), r, "applied")).toBe(false); // the old owner lost it
      expect(await settle(l, fenceOf(r, 2, "elsewhere/3/c"), r, "applied", { n: 1 })).toBe(true);
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
      await settle(l, fenceOf(r, 1), r, "failed", { error: { code: "INVALID_INPUT", message: "boom" } });
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
      await l.release(fenceOf(r, 1), "forget");
      expect(await l.item(r.key)).toBeNull();
      expect(await l.claim({ ...r, owner: "elsewhere/6/f" })).toMatchObject({ kind: "acquired", takeover: false });
      expect(await settle(l, fenceOf(r, 1, "elsewhere/6/f"), r, "applied")).toBe(true);
      const rows = await l.actions({ plan: r.plan });
      expect(rows.map((x) => [x.key, x.outcome, x.executed])).toEqual([[r.key, "applied", true]]);
      await l.close();
    });

    test("settle and its action-log row land together: a settle that loses its fence writes no row", async () => {
      const l = await open();
      const r = request();
      await l.claim(r);
      expect(await settle(l, fenceOf(r, 1, "elsewhere/9/z"), r, "applied")).toBe(false);
      expect(await l.actions({ plan: r.plan })).toEqual([]);
      expect(await settle(l, fenceOf(r, 1), r, "applied")).toBe(true);
      expect(await settle(l, fenceOf(r, 1), r, "applied")).toBe(false); // settled once, logged once
      expect((await l.actions({ plan: r.plan })).length).toBe(1);
      await l.close();
    });

    test("settle and the next item's claim land together: none when the settle is refused, none over a key already in the ledger", async () => {
      const l = await open();
      const r = request();
      const next = request({ plan: r.plan });
      await l.claim(r);
      const s = (f: Fence, n: ClaimRequest) =>
        l.settleAndClaim(f, { outcome: "applied", result: {}, now: r.now + 20, log: logRow(r, "applied") }, n);
      expect(await s(fenceOf(r, 1, "elsewhere/9/y"), next)).toEqual({ settled: false, next: null });
      expect(await l.item(next.key)).toBeNull(); // a refused settle claims nothing
      expect(await s(fenceOf(r, 1), next)).toEqual({
        settled: true,
        next: { kind: "acquired", takeover: false, previousOwner: null, generation: 1 },
      });
      expect(await l.item(next.key)).toMatchObject({ state: "intent", owner: next.owner });
      expect((await l.actions({ plan: r.plan })).map((x) => x.key)).toEqual([r.key]);
      expect((await l.claim({ ...next, owner: "elsewhere/2/b" })).kind).toBe("busy"); // the claim is a claim like any other

      // A key someone else holds is not taken by a settlement: it goes through the usual claim.
      const third = request({ plan: r.plan, owner: "elsewhere/3/c" });
      await l.claim(third);
      expect(
        await l.settleAndClaim(
          fenceOf(next, 1),
          { outcome: "applied", result: {}, now: r.now + 30, log: logRow(next, "applied") },
          { ...third, owner: next.owner },
        ),
      ).toEqual({ settled: true, next: null });
      expect(await l.item(third.key)).toMatchObject({ state: "intent", owner: "elsewhere/3/c" });
      await l.close();
    });

    test("renewing the lease holds the item past its first expiry; a stale generation can neither renew nor settle", async () => {
      const l = await open();
      const r = request({ leaseMs: 50 });
      await l.claim(r);
      expect(await l.renew(fenceOf(r, 1), r.now + 60_000, r.now + 40)).toBe(true);
      expect((await l.claim({ ...r, owner: "elsewhere/7/g", now: r.now + 100 })).kind).toBe("busy"); // renewed: still held
      const taken = await l.claim({ ...r, owner: "elsewhere/7/g", now: r.now + 70_000 });
      expect(taken).toMatchObject({ kind: "acquired", takeover: true, generation: 2 });
      expect(await l.renew(fenceOf(r, 1), r.now + 80_000, r.now + 70_001)).toBe(false);
      expect(await settle(l, fenceOf(r, 1), r, "applied")).toBe(false);
      // Even the same owner string with the old generation is fenced out.
      expect(await settle(l, fenceOf(r, 1, "elsewhere/7/g"), r, "applied")).toBe(false);
      expect(await settle(l, fenceOf(r, 2, "elsewhere/7/g"), r, "applied")).toBe(true);
      await l.close();
    });

    test("a retryable failure releases the item for reconciliation: the next claim is a takeover, nothing stored", async () => {
      const l = await open();
      const r = request();
      await l.claim(r);
      await l.release(fenceOf(r, 1), "reconcile");
      expect(await l.item(r.key)).toMatchObject({ state: "intent", owner: null, outcome: null });
      expect(await l.claim({ ...r, owner: "elsewhere/8/h" })).toMatchObject({
        kind: "acquired",
        takeover: true,
        generation: 2,
      });
      await l.close();
    });

    test("migrations run once: opening again finds the schema in place", async () => {
      const a = await open();
      await a.close();
      const b = await open();
      expect(await b.item("none")).toBeNull();
      const versions =
        b.engine === "sqlite"
          ? new (await import("bun:sqlite")).Database(sqliteFile).query("SELECT version FROM ledger_migrations").all()
          : await new Bun.SQL(postgresUrl())`SELECT version FROM ledger_migrations`;
      expect(versions.map((v: any) => v.version)).toEqual([1]);
      await b.close();
    });
  });
}

describe("the sqlite ledger, opened by many processes at once", () => {
  test("eight processes opening one new ledger file together all succeed (no 'database is locked')", async () => {
    for (let round = 0; round < 5; round++) {
      const file = join(mkdtempSync(join(tmpdir(), "ledger-open-")), "ledger.sqlite");
      const script = `const { openLedger } = await import(${JSON.stringify(join(import.meta.dir, "../../src/features/ledger/index.ts"))}); const at = Number(process.argv[2]); while (Date.now() < at) {} const l = await openLedger(undefined, ${JSON.stringify(file)}, { now: Date.now }); await l.close(); console.log("ok");`;
      const at = Date.now() + 400;
      const procs = Array.from({ length: 8 }, () =>
        Bun.spawn([process.execPath, "-e", script, String(at)], { stdout: "pipe", stderr: "pipe" }),
      );
      const results = await Promise.all(
        procs.map(async (p) => ({
          code: await p.exited,
          out: await new Response(p.stdout).text(),
          err: await new Response(p.stderr).text(),
        })),
      );
      for (const res of results) expect(res).toMatchObject({ code: 0, out: "ok\n" });
    }
  }, 120_000);

  test("a ledger that cannot be opened names the file, not an unset variable", async () => {
    const err = await openLedger(undefined, "/proc/no-such-dir/ledger.sqlite", CLOCK).catch((e) => e);
    expect(isLedgerFailure(err)).toBe(true);
    expect(err.code).toBe("UPSTREAM_ERROR");
    expect(err.message).toContain("the ledger file /proc/no-such-dir/ledger.sqlite cannot be opened");
    expect(err.message).not.toContain("AGENT_LEDGER_URL");
  });
});
