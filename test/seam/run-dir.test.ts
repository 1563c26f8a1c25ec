/** meta.run_dir tells the truth: the folder a caller can go and read, or null when none survives the run. */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import seoTool from "../../tools/seo/tool.ts";
import { root } from "../helpers/bin.ts";
import { runInProcess } from "../helpers/in-process.ts";

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
});
