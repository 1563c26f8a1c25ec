/**
 * The approval binds where: a folder swapped for a link after the gate
 * approved it is never written through. The approved staging site (or notes
 * repository) is swapped for a link to an identical production copy (a
 * clone), before apply or between two items, and apply refuses with
 * ROOT_CHANGED, exit 3, leaving the copy byte for byte as it was. Real
 * folders, real links, real git repositories, the compiled binaries.
 *
 * Between items is made deterministic with the ledger: another owner holds
 * the second item's claim, so `apply --wait` stops after the first item
 * until the test, having swapped the folder, lets the claim go.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, renameSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLedger } from "../../src/features/ledger/index.ts";
import type { Ledger } from "../../src/kit/mutations/index.ts";
import { canonicalJson } from "../../src/kit/mutations/plan.ts";
import { sha256 } from "../../src/kit/pipeline/hash.ts";
import { binary } from "../helpers/bin.ts";
import { finishApply, removeWorkspaces, snapshot, spawnApply, workspace } from "../helpers/mutation.ts";
import { knowledgeBase, type KnowledgeBase } from "../helpers/notes-repo.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

/** The clock the ledger stamps its migrations with. */
const CLOCK = { now: () => Date.now() };

afterAll(removeWorkspaces, SLOW_HOOK);

const readPlan = (runDir: string) => JSON.parse(readFileSync(join(runDir, "plan.json"), "utf8"));

/** Puts a link to `copy` where `folder` was; the approved folder itself is kept aside, untouched. */
function swap(folder: string, copy: string): string {
  const aside = `${folder}-approved`;
  renameSync(folder, aside);
  symlinkSync(copy, folder);
  return aside;
}

const HOLDER = { owner: "elsewhere/1/holder", generation: 1 };

/** Takes the plan's item `index` in its ledger as another applier would, holding it until released. */
async function holdItem(
  tool: string,
  runDir: string,
  index: number,
): Promise<{ ledger: Ledger; release(): Promise<void>; settled(i: number): Promise<boolean> }> {
  const plan = readPlan(runDir);
  const it = plan.items[index];
  const ledger = await openLedger(undefined, join(runDir, "ledger.sqlite"), CLOCK);
  const claim = await ledger.claim({
    key: it.idempotency_key,
    fingerprint: sha256(canonicalJson(it.params)),
    tool,
    action: it.action,
    plan: plan.checksum,
    item: it.id,
    owner: HOLDER.owner,
    leaseMs: 3_600_000,
    now: Date.now(),
  });
  expect(claim.kind).toBe("acquired");
  return {
    ledger,
    release: () => ledger.release({ key: it.idempotency_key, ...HOLDER }, "forget"),
    settled: async (i) => (await ledger.item(plan.items[i].idempotency_key))?.state === "settled",
  };
}

/** Waits (bounded: a hang is a failure) until `done` holds. */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (await done()) return;
    await Bun.sleep(20);
  }
  throw new Error(`never happened: ${what}`);
}

/** The clone's history and files, to prove nothing was committed into it. */
const gitState = (k: KnowledgeBase, repo: string) => ({
  head: k.git("-C", repo, "rev-parse", "HEAD"),
  files: snapshot(join(repo, "notes")),
});

describe("seo apply refuses a site folder swapped for a link after approval", () => {
  for (const where of ["inside the policy's roots", "outside them"])
    test(`swapped before apply for a link to an identical production copy ${where}: ROOT_CHANGED, exit 3; neither folder is written`, async () => {
      const ws = await workspace({});
      expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
      expect((await ws.gate(["review", "--plan", ws.run])).code).toBe(0);
      const production = join(
        where.startsWith("inside") ? ws.dir : mkdtempSync(join(tmpdir(), "production-")),
        "production",
      );
      cpSync(ws.site, production, { recursive: true });
      const before = snapshot(production);
      const staging = snapshot(ws.site);
      const aside = swap(ws.site, production);
      const r = await ws.seo(["apply", "--plan", ws.run]);
      expect([r.code, r.json.error?.code]).toEqual([3, "ROOT_CHANGED"]);
      expect(r.json.error.message).toContain(`resolves to ${production}`);
      expect(snapshot(production)).toEqual(before);
      expect(snapshot(aside)).toEqual(staging);
    });

  test("swapped between two items: the first is applied to the approved folder, the rest are refused (ROOT_CHANGED), the copy untouched", async () => {
    const ws = await workspace({});
    expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
    expect((await ws.gate(["review", "--plan", ws.run])).code).toBe(0);
    const items = readPlan(ws.run).items;
    expect(items.length).toBeGreaterThan(2);
    const production = join(ws.dir, "production");
    cpSync(ws.site, production, { recursive: true });
    const before = snapshot(production);
    const held = await holdItem("seo", ws.run, 1);
    try {
      const apply = spawnApply(binary("seo"), ws.run, ws.env, ["--wait"]);
      await until("the first item settled", () => held.settled(0));
      const aside = swap(ws.site, production);
      await held.release();
      const r = await finishApply(apply);
      expect([r.code, r.json.error?.code]).toEqual([3, "ROOT_CHANGED"]);
      const outcomes = r.json.error.detail.items.map((i: any) => [i.outcome, i.error?.code ?? null]);
      expect(outcomes[0]).toEqual(["applied", null]);
      expect(outcomes[1]).toEqual(["failed", "ROOT_CHANGED"]);
      expect(outcomes.slice(2).every(([o, c]: string[]) => o === "skipped" && c === "ROOT_CHANGED")).toBe(true);
      expect(snapshot(production)).toEqual(before);
      const changed = Object.keys(before).filter((f) => snapshot(aside)[f] !== before[f]);
      expect(changed).toEqual([items[0].params.file]);
    } finally {
      await held.ledger.close();
    }
  });
});

describe("brain apply refuses a notes repository swapped for a link to a clone after approval", () => {
  async function approvedDeletes(): Promise<{ k: KnowledgeBase; clone: string }> {
    const k = knowledgeBase();
    expect(
      (
        await k.brain([
          "note",
          "delete",
          "--id",
          "winter-care",
          "--id",
          "forging-steel",
          "--id",
          "sharpening-spades",
          "--run-dir",
          k.run,
        ])
      ).code,
    ).toBe(0);
    expect((await k.gate(["review", "--plan", k.run])).code).toBe(0);
    const clone = join(k.dir, "clone");
    k.git("clone", "-q", k.repo, clone);
    return { k, clone };
  }

  test("swapped before apply: ROOT_CHANGED, exit 3; nothing committed into the clone or the approved repository", async () => {
    const { k, clone } = await approvedDeletes();
    const before = gitState(k, clone);
    const approvedHead = k.git("rev-parse", "HEAD");
    const aside = swap(k.repo, clone);
    const r = await k.brain(["apply", "--plan", k.run]);
    expect([r.code, r.json.error?.code]).toEqual([3, "ROOT_CHANGED"]);
    expect(gitState(k, clone)).toEqual(before);
    expect(k.git("-C", aside, "rev-parse", "HEAD")).toBe(approvedHead);
  });

  test("swapped between two items: one commit in the approved repository, none in the clone", async () => {
    const { k, clone } = await approvedDeletes();
    const before = gitState(k, clone);
    const held = await holdItem("brain", k.run, 1);
    try {
      const apply = spawnApply(binary("brain"), k.run, k.env, ["--wait"]);
      await until("the first item settled", () => held.settled(0));
      const aside = swap(k.repo, clone);
      await held.release();
      const r = await finishApply(apply);
      expect([r.code, r.json.error?.code]).toEqual([3, "ROOT_CHANGED"]);
      expect(r.json.error.detail.items.map((i: any) => i.outcome)).toEqual(["applied", "failed", "skipped"]);
      expect(gitState(k, clone)).toEqual(before);
      expect(k.git("-C", aside, "rev-list", "--count", "HEAD").trim()).toBe("2");
    } finally {
      await held.ledger.close();
    }
  });
});
