/**
 * fix-broken-link fixes broken links only: the gate's read-back checks the
 * link an item repoints is broken (no file of the site folder serves it) and
 * its new target answers; a target off the site is a person's decision. Items
 * written by hand into the example site's plan, judged by the compiled gate.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { forgeItem, hrefEdits } from "../helpers/forge.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { removeWorkspaces, type Workspace, workspace } from "../helpers/mutation.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

async function planned(): Promise<Workspace> {
  const ws = await workspace({});
  expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
  return ws;
}

/** A fix-broken-link item on index.html from `from` to `to`, written by hand; the gate's review of the plan. */
async function reviewLinkFix(ws: Workspace, from: string, to: string) {
  const page = readFileSync(join(ws.site, "index.html"), "utf8");
  const id = forgeItem(ws.run, ws.site, "index.html", "fix-broken-link", { from, to }, hrefEdits(page, from, to));
  return { id, review: await ws.gate(["review", "--plan", ws.run]) };
}

describe("fix-broken-link is auto-approved only for a broken link pointed at a page of the site", () => {
  test("the honest plan's fix of a broken link is still auto-approved, and applies", async () => {
    const ws = await planned();
    const plan = JSON.parse(readFileSync(join(ws.run, "plan.json"), "utf8"));
    const fix = plan.items.find((i: any) => i.action === "fix-broken-link");
    expect([fix.params.from, fix.params.to]).toEqual(["/abuot.html", "/about.html"]);
    expect((await ws.gate(["review", "--plan", ws.run])).code).toBe(0);
    expect((await ws.seo(["apply", "--plan", ws.run])).code).toBe(0);
    expect(readFileSync(join(ws.site, "index.html"), "utf8")).toContain('<a href="/about.html">how we started</a>');
  });

  for (const to of ["https://evil/", "//evil"])
    test(`a working link pointed at ${to} is not auto-approved: refused, the link is not broken`, async () => {
      const ws = await planned();
      const { id, review } = await reviewLinkFix(ws, "/about.html", to);
      console.log(`gate review: exit ${review.code}: ${review.json.error?.message}`);
      expect([review.code, review.json.error?.code]).toEqual([3, "PLAN_INVALID"]);
      expect(review.json.error.message).toContain(id);
      expect(review.json.error.message).toContain("is not broken");
    });

  for (const to of ["https://evil/", "//evil"])
    test(`a broken link pointed off the site, at ${to}, waits for a person (exit 5), who may approve it`, async () => {
      const ws = await planned();
      const { id, review } = await reviewLinkFix(ws, "/abuot.html", to);
      console.log(`gate review: exit ${review.code}: ${review.json.error?.message}`);
      expect([review.code, review.json.error?.code]).toEqual([5, "APPROVAL_REQUIRED"]);
      expect(review.json.error.message).toContain(`${id} (fix-broken-link): it points the link at`);
      expect((await ws.gate(["approve", "--plan", ws.run])).code).toBe(0);
    });

  test("a broken link pointed at a page the site does not have is refused", async () => {
    const ws = await planned();
    const { review } = await reviewLinkFix(ws, "/abuot.html", "/nowhere.html");
    expect([review.code, review.json.error?.code]).toEqual([3, "PLAN_INVALID"]);
    expect(review.json.error.message).toContain("does not answer");
  });
});
