/**
 * The full example policy in docs/mutations.md is the one a reader copies:
 * read from the page as it stands, it is a valid policy, and the compiled
 * gate approves a seo plan under it and apply applies it.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPolicy } from "../../src/kit/mutations/policy.ts";
import { root } from "../helpers/bin.ts";
import { removeWorkspaces, workspace } from "../helpers/mutation.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

/** The first JSON block after "The standing policy" in docs/mutations.md, its list indent removed. */
function examplePolicy(): string {
  const page = readFileSync(join(root, "docs", "mutations.md"), "utf8");
  const from = page.indexOf("**The standing policy**");
  const block = /```json\n([\s\S]*?)\n\s*```/.exec(page.slice(from));
  if (from < 0 || !block) throw new Error("docs/mutations.md holds no example policy");
  return block[1]!.replace(/^ {2}/gm, "");
}

test("the example policy in docs/mutations.md is valid as written: version a string, actions, tools, roots, approvers", () => {
  const dir = mkdtempSync(join(tmpdir(), "policy-doc-"));
  const path = join(dir, "policy.json");
  writeFileSync(path, examplePolicy());
  const policy = readPolicy(path);
  rmSync(dir, { recursive: true });
  expect(typeof policy.version).toBe("string");
  expect(Object.keys(policy.tools ?? {}).sort()).toEqual(["seo", "ticket"]);
  expect(policy.roots?.seo).toEqual(["site"]);
  expect(policy.approvers?.length).toBe(1);
  expect(Object.keys(policy.actions)).toContain("seo.set-lang");
});

test("the gate approves a seo plan under the example policy as written, and apply applies it", async () => {
  const ws = await workspace({});
  // The page's policy, beside the workspace's site: its roots ("site") are read from the policy file's folder.
  writeFileSync(ws.env.AGENT_POLICY_FILE!, examplePolicy());
  expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
  const review = await ws.gate(["review", "--plan", ws.run]);
  expect([review.code, review.json.data?.decision, review.json.error]).toEqual([0, "approved", null]);
  expect(review.json.data.policy_version).toBe("2026-12-01");
  const applied = await ws.seo(["apply", "--plan", ws.run]);
  expect([applied.code, applied.json.error]).toEqual([0, null]);
});
