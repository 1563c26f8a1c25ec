/**
 * The fence before an item's irreversible step, on a real SQLite ledger and a clock the test turns: the one
 * guard against a stale owner that nothing else re-checks (a tool whose write step trusts the kit). The
 * exactly-once tests reach it through seo, whose own re-check of the file would stop a stale owner anyway.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLedger } from "../../src/features/ledger/index.ts";
import { Lease } from "../../src/kit/mutations/apply/lease.ts";
import type { ClaimRequest, Ledger } from "../../src/kit/mutations/index.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const LEASE_MS = 1000;
let dir: string;
let ledger: Ledger;
let clock: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "lease-"));
  ledger = await openLedger(undefined, join(dir, "ledger.sqlite"), { now: () => Date.now() });
  clock = 1_000_000;
}, SLOW_HOOK);

afterEach(async () => {
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
}, SLOW_HOOK);

// Owners on another host: the ledger judges them by their lease alone, never by whether their pid lives here.
const claimA = (): ClaimRequest => ({
  key: "item-1",
  fingerprint: "f1",
  tool: "t",
  action: "a",
  plan: "p",
  item: "i",
  owner: "elsewhere/1/a",
  leaseMs: LEASE_MS,
  now: clock,
});

/** A's lease on the item, kept with no heartbeat: only the fence asks the ledger. */
async function leaseOfA(): Promise<Lease> {
  expect(await ledger.claim(claimA())).toMatchObject({ kind: "acquired", generation: 1 });
  const fence = { key: "item-1", owner: "elsewhere/1/a", generation: 1 };
  return new Lease(ledger, fence, LEASE_MS, () => clock, new AbortController().signal, false, clock);
}

test("an owner whose lease was taken over while it had no heartbeat is stopped at the fence", async () => {
  const lease = await leaseOfA();
  clock += LEASE_MS / 4;
  await lease.fence(); // confirmed a quarter of a lease ago: it cannot have been taken over
  clock += LEASE_MS * 2;
  const b = await ledger.claim({ ...claimA(), owner: "elsewhere/2/b", now: clock });
  expect(b).toMatchObject({ kind: "acquired", takeover: true, generation: 2 });
  await expect(lease.fence()).rejects.toMatchObject({ code: "IN_PROGRESS" });
  expect(lease.signal.aborted).toBe(true);
  lease.stop();
});

test("past half its lease, the fence asks the ledger and renews: the item stays A's", async () => {
  const lease = await leaseOfA();
  clock += (LEASE_MS * 3) / 4;
  await lease.fence();
  // Without the renewal A's lease would have run out by now, and B would take the item over.
  clock += (LEASE_MS * 3) / 4;
  expect(await ledger.claim({ ...claimA(), owner: "elsewhere/2/b", now: clock })).toMatchObject({ kind: "busy" });
  lease.stop();
});
