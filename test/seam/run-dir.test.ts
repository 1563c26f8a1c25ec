/** meta.run_dir tells the truth: the folder a caller can go and read, or null when none survives the run. */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import seoTool from "../../tools/seo/tool.ts";
import { root } from "../helpers/bin.ts";
import { runInProcess } from "../helpers/in-process.ts";
import * as z from "zod/mini";
import { defineTool } from "../../src/kit/index.ts";
import { planResult, writePlan } from "../../src/kit/writes.ts";

/** A tool whose one write makes a plan of one item. */
const planner = defineTool({
  name: "planner",
  version: "1.0.0",
  contractVersion: 0,
  purpose: "Plans one change.",
  commands: [
    {
      resource: "item",
      verb: "create",
      tier: 1,
      rw: "write",
      summary: "Plan one item.",
      flags: z.object({ title: z.string() }),
      result: planResult,
      schema: "planner.item.create@1",
      errors: [],
      run: (ctx) =>
        writePlan(ctx, async () => ({
          context: {},
          items: [{ action: "add", reason: "asked", params: { title: ctx.flags.title }, preconditions: [] }],
        })),
    },
  ],
});

const seo = (argv: readonly string[]) => runInProcess(seoTool, argv);

describe("meta.run_dir", () => {
  test("without --run-dir, a stage whose input is missing removes the fresh run dir it made and reports none", async () => {
    const r = await seo(["extract"]);
    expect([r.code, r.json.error.code]).toEqual([3, "MISSING_ARTIFACT"]);
    expect(r.json.meta.run_dir).toBeNull();
  });

  test("without --run-dir, a stage that succeeds reports the fresh run dir it keeps, and it is there", async () => {
    const r = await seo(["crawl", "--dir", join(root, "examples", "site"), "--base-url", "https://harbour.example"]);
    expect(r.code).toBe(0);
    expect(typeof r.json.meta.run_dir).toBe("string");
    expect(existsSync(join(r.json.meta.run_dir, "crawl.json"))).toBe(true);
  });

  test("a given --run-dir is reported even when the stage's input is missing from it", async () => {
    const given = mkdtempSync(join(tmpdir(), "run-dir-given-"));
    const r = await seo(["extract", "--run-dir", given]);
    expect([r.code, r.json.meta.run_dir, existsSync(given)]).toEqual([3, given, true]);
  });

  test("a plan made under --dry-run is reported, and no folder or plan.json is left in the temporary folder", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "dry-plan-"));
    const r = await runInProcess(planner, ["item", "create", "--title", "milk", "--dry-run"], { tmpdir: tmp });
    expect([r.code, r.json.data.items.length, r.json.data.plan, r.json.meta.run_dir]).toEqual([0, 1, "", null]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  test("the same plan without --dry-run is written where meta.run_dir says", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "plan-"));
    const r = await runInProcess(planner, ["item", "create", "--title", "milk"], { tmpdir: tmp });
    expect(r.code).toBe(0);
    expect(r.json.data.plan).toBe(join(r.json.meta.run_dir, "plan.json"));
    expect(existsSync(r.json.data.plan)).toBe(true);
  });
});
