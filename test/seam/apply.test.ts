/**
 * plan → gate → apply on both ledger engines, with seo in-process through
 * the kit's seam (the gate is its binary): the edits, a re-run that applies
 * nothing twice, the action log, and a dry run's would-apply.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
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

for (const [engine, ledgerUrl] of Object.entries(LEDGER_ENGINES)) {
  describe(`apply through the ${engine} ledger`, () => {
    test("plan → gate → apply edits the files; a re-run applies nothing twice", async () => {
      const ws = await workspace({ ledgerUrl: ledgerUrl(), door: "in-process" });
      const before = snapshot(ws.site);
      const plan = await planAndReview(ws);
      expect(plan.items.map((i: any) => i.action)).toEqual(
        expect.arrayContaining([
          "set-lang",
          "add-viewport",
          "add-canonical",
          "remove-duplicate-canonical",
          "add-meta-description",
          "fix-broken-link",
        ]),
      );
      expect(snapshot(ws.site)).toEqual(before); // planning and reviewing mutate nothing

      const first = await ws.seo(["apply", "--plan", ws.run]);
      expect(first.code).toBe(0);
      expect(first.json.data.executed).toBe(plan.items.length);
      const about = readFileSync(join(ws.site, "about.html"), "utf8");
      expect(about).toContain('<html lang="en">');
      expect(about).toContain('  <meta name="viewport" content="width=device-width, initial-scale=1">\n');
      expect(about).toContain('<link rel="canonical" href="https://harbour.example/about.html">');
      expect(about).toMatch(/<meta name="description" content="Harbour Tools began in 2009[^"]*">/);
      expect(readFileSync(join(ws.site, "index.html"), "utf8")).toContain('<a href="/about.html">how we started</a>');
      expect(readFileSync(join(ws.site, "blog", "index.html"), "utf8")).not.toContain("journal/");
      // The rest of each file is byte-for-byte what it was: only the planned lines differ.
      const linesBefore = before["contact.html"]!.split("\n");
      expect(snapshot(ws.site)["contact.html"]).toBe(before["contact.html"]); // no finding there, no edit
      expect(linesBefore.length).toBeGreaterThan(5);

      const after = snapshot(ws.site);
      const again = await ws.seo(["apply", "--plan", ws.run]);
      expect(again.code).toBe(0);
      expect(again.json.data.executed).toBe(0);
      expect(new Set(again.json.data.items.map((i: any) => i.outcome))).toEqual(new Set(["already-applied"]));
      expect(snapshot(ws.site)).toEqual(after);

      const log = await actionLog(ws);
      expect(log.length).toBe(plan.items.length);
      expect(log.every((r) => r.executed && r.outcome === "applied")).toBe(true);
    }, 120_000);

    test("--dry-run reports every item as would-apply and changes nothing, the ledger included", async () => {
      const ws = await workspace({ ledgerUrl: ledgerUrl(), door: "in-process" });
      const plan = await planAndReview(ws);
      const before = snapshot(ws.site);
      const dry = await ws.seo(["apply", "--plan", ws.run, "--dry-run"]);
      expect([dry.code, dry.json.data.status, dry.json.data.executed]).toEqual([0, "dry-run", 0]);
      expect(new Set(dry.json.data.items.map((i: any) => i.outcome))).toEqual(new Set(["would-apply"]));
      expect(dry.json.meta.outcome).toMatchObject({ unit: "count", projected: plan.items.length, realized: null });
      expect(snapshot(ws.site)).toEqual(before);
      expect((await ws.seo(["apply", "--plan", ws.run])).json.data.executed).toBe(plan.items.length);
    }, 120_000);
  });
}
