/**
 * Exactly once under the failures a real apply meets, through the compiled
 * binaries: a lease outlived by a slow execution, a crash at the commit
 * point, a ledger server that goes away, a target that refuses writes.
 * (The long loops of the same are `npm run soak`.)
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, binary, FAILPOINT, root, run, testBinary } from "../helpers/bin.ts";
import { openLedger } from "../../src/features/ledger/index.ts";
import {
  finishApply,
  LEDGER_ENGINES,
  removeWorkspaces,
  spawnApply,
  workspace,
  type Workspace,
} from "../helpers/mutation.ts";
import { machineEnv } from "../helpers/machine-tmp.ts";
import { knowledgeBase, type KnowledgeBase } from "../helpers/notes-repo.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

/** The clock the ledger stamps its migrations with. */
const CLOCK = { now: () => Date.now() };

afterAll(removeWorkspaces, SLOW_HOOK);

async function planned(ws: Workspace): Promise<number> {
  const p = await ws.seo(["plan", "--run-dir", ws.run]);
  expect(p.code).toBe(0);
  expect((await ws.gate(["review", "--plan", ws.run])).code).toBe(0);
  return p.json.data.total;
}

const executedPerKey = (rows: any[]) =>
  [
    ...Map.groupBy(
      rows.filter((r) => r.executed),
      (r: any) => r.idempotency_key,
    ).values(),
  ].map((r) => r.length);

async function brainPlanned(k: KnowledgeBase, args: string[]): Promise<string[]> {
  const p = await k.brain([...args, "--run-dir", k.run]);
  expect(p.code).toBe(0);
  expect((await run(binary("gate"), ["review", "--plan", k.run, "--json"], { env: k.env })).code).toBe(0);
  return JSON.parse(readFileSync(join(k.run, "plan.json"), "utf8")).items.map((i: any) => i.idempotency_key);
}

const commitsPerKey = (k: KnowledgeBase, keys: string[]) => {
  const trailers = k
    .git("log", "--format=%(trailers:key=Idempotency-Key,valueonly)")
    .split("\n")
    .map((l) => l.trim());
  return keys.map((key) => trailers.filter((t) => t === key).length);
};

/** The items an apply holds (intent rows) in the SQLite ledger beside a plan, as another process sees them mid-apply. */
function heldItems(run: string): { created_at: number; updated_at: number }[] {
  const file = join(run, "ledger.sqlite");
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true });
  try {
    return db.query("SELECT created_at, updated_at FROM action_items WHERE state = 'intent'").all() as {
      created_at: number;
      updated_at: number;
    }[];
  } catch {
    return []; // its tables not made yet
  } finally {
    db.close();
  }
}

/** Waits for `apply` (still running) to reach the state `ready` sees, polling: never a guess at how long it takes. */
async function untilApply(
  apply: ReturnType<typeof spawnApply>,
  ready: () => boolean | Promise<boolean>,
  state: string,
): Promise<void> {
  while (!(await ready())) {
    if (apply.exitCode !== null) throw new Error(`the apply ended (exit ${apply.exitCode}) before ${state}`);
    await Bun.sleep(10);
  }
}

describe("a lease outlived by a slow execution", () => {
  // A's first execution takes 2.5 s under a 400 ms lease. B starts once the lease would have run out without the
  // heartbeat: with it, once A has renewed its lease past its first term (a state of A's ledger, polled); without it,
  // as soon as A holds the item, B's clock a minute ahead (the test build's clock-ahead), so the lease has run out for B.
  const LEASE_MS = 400;
  const LEASE = { AGENT_LEDGER_LEASE_MS: String(LEASE_MS) };
  const renewedPastFirstTerm = (run: string) => () =>
    heldItems(run).some((i) => i.updated_at >= i.created_at + LEASE_MS);
  const held = (run: string) => () => heldItems(run).length > 0;
  /** B: the release build where A's heartbeat keeps the lease; else the test build, its clock past A's lease. */
  const racer = (tool: string, heartbeat: boolean): [string, Record<string, string>] =>
    heartbeat ? [binary(tool), LEASE] : [testBinary(tool), { ...LEASE, [FAILPOINT]: "clock-ahead:60000" }];

  for (const heartbeat of [true, false]) {
    test(`seo: ${heartbeat ? "the heartbeat keeps the item A's" : "with the heartbeat off, the fence stops A, the stale owner"}; nothing executes twice`, async () => {
      const ws = await workspace({ pages: 2, maxPages: 2 });
      const items = await planned(ws);
      const a = spawnApply(testBinary("seo"), ws.run, {
        ...ws.env,
        ...LEASE,
        AGENT_KIT_FAILPOINT: `delay-first-execute:2500${heartbeat ? "" : ",no-heartbeat"}`,
      });
      await untilApply(a, heartbeat ? renewedPastFirstTerm(ws.run) : held(ws.run), "B's turn");
      const [bin, env] = racer("seo", heartbeat);
      const b = await finishApply(spawnApply(bin, ws.run, { ...ws.env, ...env }));
      const ra = await finishApply(a);
      const log = (await ws.seo(["action", "list", "--plan", ws.run])).json.data.items;
      expect(executedPerKey(log).every((n) => n === 1)).toBe(true);
      expect(new Set(log.map((r: any) => r.idempotency_key)).size).toBe(items);
      if (heartbeat) {
        expect(ra.code).toBe(0);
        expect(b.json.error.code).toBe("IN_PROGRESS"); // B skipped the item A held, and applied the rest
      } else {
        expect(ra.json.error.code).toBe("IN_PROGRESS"); // A lost its lease and says so, committing nothing
        expect(ra.json.error.detail.items[0]).toMatchObject({ outcome: "in-progress", executed: false });
        expect(b.code).toBe(0);
      }
    }, 120_000);

    test(`brain: ${heartbeat ? "heartbeat" : "fence only"}: one commit for the key, never two`, async () => {
      const k = knowledgeBase();
      const keys = await brainPlanned(k, [
        "note",
        "update",
        "--id",
        "harbour-history",
        "--title",
        "Harbour history, revised",
      ]);
      const a = spawnApply(testBinary("brain"), k.run, {
        ...k.env,
        ...LEASE,
        AGENT_KIT_FAILPOINT: `delay-first-execute:2500${heartbeat ? "" : ",no-heartbeat"}`,
      });
      await untilApply(a, heartbeat ? renewedPastFirstTerm(k.run) : held(k.run), "B's turn");
      const [bin, env] = racer("brain", heartbeat);
      const b = await finishApply(spawnApply(bin, k.run, { ...k.env, ...env }));
      const ra = await finishApply(a);
      // Whoever held the lease when the other came committed; the other says IN_PROGRESS.
      const [holder, other] = heartbeat ? [ra, b] : [b, ra];
      expect([holder.code, other.json.error?.code]).toEqual([0, "IN_PROGRESS"]);
      expect(commitsPerKey(k, keys)).toEqual([1]);
      expect(k.git("status", "--porcelain")).toBe("");
    }, 120_000);
  }
});

describe("a crash at the commit point", () => {
  test("seo: the temp file a killed apply left is gone after the re-apply, and the site is what one clean apply makes", async () => {
    const twin = await workspace({});
    await planned(twin);
    expect((await twin.seo(["apply", "--plan", twin.run])).code).toBe(0);
    const ws = await workspace({});
    await planned(ws);
    const crashed = await ws.seo(["apply", "--plan", ws.run], { AGENT_KIT_FAILPOINT: "kill-at-commit:2" });
    expect(crashed.code).toBe(137);
    const leftovers = (dir: string): string[] =>
      readdirSync(dir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".apply-tmp"));
    expect(leftovers(ws.site).length).toBe(1); // what a crash leaves: one item's temp file
    const resumed = await ws.seo(["apply", "--plan", ws.run]);
    expect(resumed.code).toBe(0);
    expect(leftovers(ws.site)).toEqual([]);
    const files = (dir: string) =>
      Object.fromEntries(
        readdirSync(dir, { recursive: true })
          .map(String)
          .sort()
          .map((f) => [
            f,
            (() => {
              try {
                return readFileSync(join(dir, f), "latin1");
              } catch {
                return "(folder)";
              }
            })(),
          ]),
      );
    expect(files(ws.site)).toEqual(files(twin.site));
  }, 120_000);

  for (const [engine, url] of Object.entries(LEDGER_ENGINES))
    test(`seo on ${engine}: killed right after a settlement claimed the next item, the re-apply takes that item over and applies it once`, async () => {
      const ws = await workspace({ ledgerUrl: url() });
      const count = await planned(ws);
      expect(count).toBeGreaterThan(2);
      const crashed = await ws.seo(["apply", "--plan", ws.run], { AGENT_KIT_FAILPOINT: "after-settle:1" });
      expect(crashed.code).toBe(137);
      const keys: string[] = JSON.parse(readFileSync(join(ws.run, "plan.json"), "utf8")).items.map(
        (i: any) => i.idempotency_key,
      );
      const ledger = await openLedger(url(), join(ws.run, "ledger.sqlite"), CLOCK);
      try {
        // What the crash leaves: the first item settled, the second claimed by a process that is gone, nothing after it.
        expect(await Promise.all(keys.slice(0, 3).map(async (k) => (await ledger.item(k))?.state ?? "none"))).toEqual([
          "settled",
          "intent",
          "none",
        ]);
        const resumed = await ws.seo(["apply", "--plan", ws.run]);
        expect(resumed.code).toBe(0);
        expect(resumed.json.data.items.map((i: any) => i.outcome)).toEqual([
          "already-applied",
          ...keys.slice(1).map(() => "applied"),
        ]);
        const log = await ledger.actions({
          plan: JSON.parse(readFileSync(join(ws.run, "plan.json"), "utf8")).checksum,
        });
        expect(executedPerKey(log.map((r) => ({ executed: r.executed, idempotency_key: r.key })))).toEqual(
          keys.map(() => 1),
        );
      } finally {
        await ledger.close();
      }
    }, 120_000);

  test("brain: killed before the ref moves, the re-apply commits once and the tree is clean", async () => {
    const k = knowledgeBase();
    const keys = await brainPlanned(k, ["note", "delete", "--id", "harbour-history", "--id", "winter-care"]);
    const crashed = await k.brain(["apply", "--plan", k.run], { AGENT_KIT_FAILPOINT: "kill-at-commit:2" });
    expect(crashed.code).toBe(137);
    expect(k.git("status", "--porcelain")).toBe(""); // nothing half-made in the work tree or index
    expect((await k.brain(["apply", "--plan", k.run])).code).toBe(0);
    expect(commitsPerKey(k, keys)).toEqual([1, 1]);
    expect(k.git("status", "--porcelain")).toBe("");
  }, 120_000);

  test("brain: a commit whose branch moved but whose work tree was not yet synced is finished, not left dirty forever", async () => {
    const k = knowledgeBase();
    const keys = await brainPlanned(k, ["note", "delete", "--id", "harbour-history", "--id", "winter-care"]);
    expect((await k.brain(["apply", "--plan", k.run], { AGENT_KIT_FAILPOINT: "after-execute:1" })).code).toBe(137);
    // Put the work tree and index back to before the first commit, as a kill between the ref move and the sync leaves them.
    k.git("reset", "-q", "HEAD~1", "--", "notes/harbour-history.md");
    k.git("checkout", "--", "notes/harbour-history.md");
    expect(k.git("status", "--porcelain")).not.toBe("");
    const resumed = await k.brain(["apply", "--plan", k.run]);
    expect(resumed.json.error).toBeNull();
    expect(commitsPerKey(k, keys)).toEqual([1, 1]);
    expect(k.git("status", "--porcelain")).toBe("");
  }, 120_000);

  test("brain: a person's own uncommitted change is never taken for ours", async () => {
    const k = knowledgeBase();
    await brainPlanned(k, ["note", "delete", "--id", "harbour-history", "--id", "winter-care"]);
    expect((await k.brain(["apply", "--plan", k.run], { AGENT_KIT_FAILPOINT: "after-execute:1" })).code).toBe(137);
    writeFileSync(join(k.repo, "notes", "winter-care.md"), "a person's edit\n");
    const r = await k.brain(["apply", "--plan", k.run]);
    expect(r.json.error.code).toBe("PRECONDITION_FAILED");
    expect(readFileSync(join(k.repo, "notes", "winter-care.md"), "utf8")).toBe("a person's edit\n");
  }, 120_000);
});

describe("a ledger server that goes away mid-apply", () => {
  test("is a retryable UPSTREAM_ERROR (exit 4) with the per-item report; after a restart the apply finishes, once each", async () => {
    const port = "55439";
    const pg = (...a: string[]) =>
      Bun.spawnSync(["bash", join(root, "scripts", "postgres.sh"), port, ...a], {
        stdout: "pipe",
        stderr: "pipe",
        env: machineEnv(),
      });
    const started = pg();
    expect(started.exitCode).toBe(0);
    const url = started.stdout.toString().trim();
    const ws = await workspace({ pages: 30, maxPages: 30, ledgerUrl: url });
    const items = await planned(ws);
    const p = spawnApply(testBinary("seo"), ws.run, { ...ws.env, AGENT_KIT_FAILPOINT: "delay-execute:40" });
    // Stopped once the apply has applied an item (seen in the shared ledger, polled), with the rest still to come.
    const plan = JSON.parse(readFileSync(join(ws.run, "plan.json"), "utf8")).checksum;
    const ledger = await openLedger(url, join(ws.run, "ledger.sqlite"), CLOCK);
    try {
      await untilApply(p, async () => (await ledger.actions({ plan })).length > 0, "an item was applied");
    } finally {
      await ledger.close();
    }
    expect(pg("stop").exitCode).toBe(0);
    const r = await finishApply(p);
    expect(r.code).toBe(4);
    expect(r.json.error).toMatchObject({ code: "UPSTREAM_ERROR", retryable: true });
    expect(r.json.error.detail.items.length).toBe(items);
    expect(r.json.error.detail.items.filter((i: any) => i.outcome === "applied").length).toBeGreaterThan(0);
    expect(pg().exitCode).toBe(0);
    const resumed = await ws.seo(["apply", "--plan", ws.run]);
    expect(resumed.code).toBe(0);
    const log = (await ws.seo(["action", "list", "--plan", ws.run, "--limit", "1000"])).json.data.items;
    expect(new Set(log.map((r: any) => r.idempotency_key)).size).toBe(items);
    expect(executedPerKey(log).every((n) => n === 1)).toBe(true);
    pg("stop");
  }, 120_000);
});

describe("a failure that may pass is not stored", () => {
  test("a site on a read-only mount: nothing executed, nothing stored; once writable, the same plan applies", async () => {
    const probe = Bun.spawnSync(["unshare", "-rm", "true"]);
    if (probe.exitCode !== 0)
      throw new Error("this test needs unshare(1) with user namespaces to mount a read-only folder");
    const ws = await workspace({});
    const items = await planned(ws);
    const ro = Bun.spawnSync(
      [
        "unshare",
        "-rm",
        "sh",
        "-c",
        `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"`,
        "sh",
        ws.site,
        binary("seo"),
        "apply",
        "--plan",
        ws.run,
        "--json",
      ],
      { env: baseEnv(ws.env), stdout: "pipe", stderr: "pipe" },
    );
    const out = JSON.parse(ro.stdout.toString());
    expect(ro.exitCode).toBe(3);
    expect(out.error.code).toBe("INVALID_INPUT");
    expect(out.error.message).toContain("read-only");
    expect(out.error.detail.items.every((i: any) => i.executed === false)).toBe(true);
    const again = await ws.seo(["apply", "--plan", ws.run]);
    expect(again.code).toBe(0);
    expect(again.json.data.executed).toBe(items);
  }, 120_000);
});
