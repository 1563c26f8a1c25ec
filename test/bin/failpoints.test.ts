/**
 * Failpoints are a test build's only: the release binaries in dist/ neither
 * read AGENT_KIT_FAILPOINT nor hold its name, so no variable set in a
 * production environment can kill an apply, stop its lease heartbeat or move
 * its clock.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { binary, FAILPOINT, run, testBinary } from "../helpers/bin.ts";
import { planAndReview, removeWorkspaces, workspace } from "../helpers/mutation.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

const RELEASES = ["seo", "brain", "gate", "harness", "fleet"];

describe("failpoints in release and test builds", () => {
  test("no release binary holds the failpoint variable's name; the test builds do", () => {
    const holding = (path: string) => readFileSync(path).includes(FAILPOINT);
    expect(RELEASES.filter((name) => holding(binary(name)))).toEqual([]);
    expect(["seo", "brain"].filter((name) => holding(testBinary(name)))).toEqual(["seo", "brain"]);
  });

  for (const failpoint of ["after-execute:1", "kill-at-commit:1", "after-settle:1"])
    test(`${failpoint}: SIGKILLs the test build's apply, and the release apply runs to the end as if it were unset`, async () => {
      const release = await workspace();
      const plan = await planAndReview(release);
      const applied = await run(binary("seo"), ["apply", "--plan", release.run, "--json"], {
        env: { ...release.env, [FAILPOINT]: failpoint },
        timeoutMs: 60_000,
      });
      expect([applied.code, applied.stdout === "" ? "no envelope" : "an envelope"]).toEqual([0, "an envelope"]);
      expect([applied.json.data?.status, applied.json.data?.executed]).toEqual(["applied", plan.items.length]);

      const testBuild = await workspace();
      await planAndReview(testBuild);
      const killed = await run(testBinary("seo"), ["apply", "--plan", testBuild.run, "--json"], {
        env: { ...testBuild.env, [FAILPOINT]: failpoint },
        timeoutMs: 60_000,
      });
      expect([killed.code, killed.stdout]).toEqual([137, ""]);
    }, 120_000);

  test("clock-ahead:MS moves the test build's clock (a plan of one day has expired two days on); the release binary's clock stays the wall clock", async () => {
    const ws = await workspace();
    const plan = await planAndReview(ws);
    const env = { ...ws.env, [FAILPOINT]: `clock-ahead:${2 * 86_400_000}` };
    const args = ["apply", "--plan", ws.run, "--json"];
    const expired = await run(testBinary("seo"), args, { env, timeoutMs: 60_000 });
    expect([expired.code, expired.json.error?.code]).toEqual([3, "PLAN_EXPIRED"]);
    const applied = await run(binary("seo"), args, { env, timeoutMs: 60_000 });
    expect([applied.code, applied.json.data?.status, applied.json.data?.executed]).toEqual([
      0,
      "applied",
      plan.items.length,
    ]);
  }, 120_000);
});
