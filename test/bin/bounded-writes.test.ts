/**
 * The write path answers bounded (contract §6), through the compiled
 * binaries: a plan, the gate's review and an apply of 160 items each show
 * counts and the first page, say they were cut and where the rest is
 * (`plan-item list`, page by page), and honour --limit; the full plan stays in
 * plan.json. --limit on a command with nothing to bound is refused.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { removeWorkspaces, workspace, type Workspace } from "../helpers/mutation.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

const PAGES = 80; // each page lacks lang and viewport: 160 items
let ws: Workspace;
const ready = (async () => {
  ws = await workspace({ pages: PAGES, maxPages: PAGES });
})();

/** Every item of the plan, walked page by page through `plan-item list`. */
async function walkItems(limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const r = await ws.seo([
      "plan-item",
      "list",
      "--plan",
      ws.run,
      "--limit",
      String(limit),
      ...(cursor ? ["--cursor", cursor] : []),
    ]);
    expect(r.code).toBe(0);
    ids.push(...r.json.data.items.map((i: { id: string }) => i.id));
    cursor = r.json.meta.pagination.next_cursor;
  } while (cursor);
  return ids;
}

describe("plan, review and apply answer bounded", () => {
  test("seo plan: counts per action, the first page, truncated with a hint naming plan-item list; plan.json has all", async () => {
    await ready;
    const r = await ws.seo(["plan", "--run-dir", ws.run]);
    expect(r.code).toBe(0);
    const { data, meta } = r.json;
    expect(data.total).toBe(2 * PAGES);
    expect(data.counts).toEqual({ "set-lang": PAGES, "add-viewport": PAGES });
    expect(data.items.length).toBe(50);
    expect(meta.truncated).toBe(true);
    expect(meta.truncation_hint).toContain(`seo plan-item list --plan ${join(ws.run, "plan.json")}`);
    expect(meta.next).toContain(`seo plan-item list --plan ${join(ws.run, "plan.json")}`);
    expect(meta.next[0]).toBe(`gate review --plan ${ws.run}`);
    const onDisk = JSON.parse(readFileSync(join(ws.run, "plan.json"), "utf8")).items.map((i: { id: string }) => i.id);
    expect(onDisk.length).toBe(2 * PAGES);
    expect(await walkItems(70)).toEqual(onDisk);
  }, 120_000);

  test("seo plan --limit 1 shows one item, and its answer is a few hundred bytes", async () => {
    await ready;
    const r = await ws.seo(["plan", "--run-dir", ws.run, "--force", "--limit", "1"]);
    expect(r.json.data.items.length).toBe(1);
    expect(r.json.meta.pagination).toMatchObject({ limit: 1, returned: 1, total: 2 * PAGES });
    expect(r.stdout.length).toBeLessThan(2000);
  }, 120_000);

  test("gate review: the first page and the counts, and next names the tool's apply", async () => {
    await ready;
    // --force: the plan before it was never applied, and is replaced on purpose
    expect((await ws.seo(["plan", "--run-dir", ws.run, "--force"])).code).toBe(0);
    const g = await ws.gate(["review", "--plan", ws.run, "--limit", "5"]);
    expect(g.code).toBe(0);
    expect(g.json.data.items.length).toBe(5);
    expect(g.json.data.total).toBe(2 * PAGES);
    expect(g.json.meta.truncated).toBe(true);
    expect(g.json.meta.next[0]).toBe(`seo apply --plan ${ws.run}`);
  }, 120_000);

  test("seo apply: counts per outcome and the first page", async () => {
    await ready;
    // --force: the plan before it was never applied, and is replaced on purpose
    expect((await ws.seo(["plan", "--run-dir", ws.run, "--force"])).code).toBe(0);
    expect((await ws.gate(["review", "--plan", ws.run])).code).toBe(0);
    const a = await ws.seo(["apply", "--plan", ws.run]);
    expect(a.code).toBe(0);
    expect(a.json.data.counts).toEqual({ applied: 2 * PAGES });
    expect(a.json.data.items.length).toBe(50);
    expect(a.json.meta.truncated).toBe(true);
  }, 180_000);
});

describe("--limit where nothing is bounded", () => {
  test("is USAGE, naming the commands that take it", async () => {
    await ready;
    for (const argv of [
      ["score", "--run-dir", ws.run, "--limit", "1"],
      ["extract", "--run-dir", ws.run, "--limit", "5"],
    ]) {
      const r = await ws.seo(argv);
      expect(r.code).toBe(2);
      expect(r.json.error.code).toBe("USAGE");
      expect(r.json.error.allowed).toContain("finding list");
      expect(r.json.error.hint).toContain("plan-item list");
    }
  }, 120_000);
});
