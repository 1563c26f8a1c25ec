/**
 * Every way apply refuses a plan, each with its own code and exit class; and
 * the gate's decisions. seo runs in-process through the kit's seam; the gate
 * is its binary.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planChecksum } from "../../src/kit/mutations/plan.ts";
import { APPROVER, gateKeys, removeWorkspaces, workspace, writePolicy, type Workspace } from "../helpers/mutation.ts";
import { FAILPOINT } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

const planPath = (ws: Workspace) => join(ws.run, "plan.json");
const readPlan = (ws: Workspace) => JSON.parse(readFileSync(planPath(ws), "utf8"));
const writePlan = (ws: Workspace, plan: unknown) => writeFileSync(planPath(ws), JSON.stringify(plan, null, 1));

async function reviewed(ws: Workspace, planArgs: string[] = []): Promise<void> {
  expect((await ws.seo(["plan", "--run-dir", ws.run, ...planArgs])).code).toBe(0);
  const g = await ws.gate(["review", "--plan", ws.run]);
  expect(g.json.error).toBeNull();
}

async function refused(ws: Workspace, code: string, exit: number, extra: Record<string, string> = {}): Promise<any> {
  const watched = join(ws.site, "index.html");
  const before = readFileSync(watched, "utf8");
  const r = await ws.seo(["apply", "--plan", ws.run], extra);
  expect(r.json.error?.code).toBe(code);
  expect(r.code).toBe(exit);
  expect(r.json.error.hint).toBeTruthy();
  if (code !== "PRECONDITION_FAILED") expect(readFileSync(watched, "utf8")).toBe(before);
  return r.json.error;
}

describe("apply refuses", () => {
  test("a plan changed after planning: PLAN_TAMPERED, exit 3", async () => {
    const ws = await workspace({ door: "in-process" });
    await reviewed(ws);
    const plan = readPlan(ws);
    plan.items[0].params.edits[0].insert = ' lang="xx"';
    writePlan(ws, plan);
    await refused(ws, "PLAN_TAMPERED", 3);
  });

  test("a plan without approval: APPROVAL_REQUIRED, exit 5", async () => {
    const ws = await workspace({ door: "in-process" });
    expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
    await refused(ws, "APPROVAL_REQUIRED", 5);
  });

  test("an approval signed by another key: APPROVAL_INVALID, exit 5", async () => {
    const ws = await workspace({ door: "in-process" });
    await reviewed(ws);
    await refused(ws, "APPROVAL_INVALID", 5, { AGENT_GATE_PUBLIC_KEY: gateKeys().publicKey });
  });

  test("a tool holding only the public key cannot approve its own plan", async () => {
    const ws = await workspace({ door: "in-process" });
    expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
    const r = await ws.gate(["review", "--plan", ws.run], { AGENT_GATE_PRIVATE_KEY: "" });
    expect(r.json.error.code).toBe("MISSING_ENV");
    expect(r.code).toBe(3);
    const plan = readPlan(ws);
    plan.policy_version = "p1";
    plan.approval_id = "apr-0000000000000000";
    plan.approval = {
      checksum: plan.checksum,
      policy_version: "p1",
      expiry: plan.expiry,
      mode: "policy",
      approved_by: "me",
      approved_at: plan.created_at,
      signature: Buffer.alloc(64).toString("base64"),
    };
    writePlan(ws, plan);
    await refused(ws, "APPROVAL_INVALID", 5);
  });

  test("an approval for a different plan: APPROVAL_MISMATCH, exit 5", async () => {
    const a = await workspace({ door: "in-process" });
    await reviewed(a);
    const b = await workspace({ door: "in-process" });
    expect((await b.seo(["plan", "--run-dir", b.run])).code).toBe(0);
    const plan = readPlan(b);
    const approved = readPlan(a);
    Object.assign(plan, {
      policy_version: approved.policy_version,
      approval_id: approved.approval_id,
      approval: approved.approval,
    });
    writePlan(b, plan);
    await refused(b, "APPROVAL_MISMATCH", 5, { AGENT_GATE_PUBLIC_KEY: a.env.AGENT_GATE_PUBLIC_KEY! });
  });

  test("an expired plan: PLAN_EXPIRED, exit 3", async () => {
    const ws = await workspace({ door: "in-process" });
    await reviewed(ws, ["--ttl", "60"]);
    // The apply's clock a minute and a second on: the plan has expired, and no test waited for it.
    await refused(ws, "PLAN_EXPIRED", 3, { [FAILPOINT]: "clock-ahead:61000" });
  });

  test("a plan approved under a policy version no longer current: POLICY_STALE, exit 3", async () => {
    const ws = await workspace({ door: "in-process" });
    await reviewed(ws);
    writePolicy(ws.dir, "p2");
    const e = await refused(ws, "POLICY_STALE", 3);
    expect(e.allowed).toEqual(["p2"]);
  });

  test("a target changed by someone else since planning: that item fails its precondition, the rest apply (partial)", async () => {
    const ws = await workspace({ door: "in-process" });
    await reviewed(ws);
    const index = join(ws.site, "index.html");
    writeFileSync(index, readFileSync(index, "utf8").replace("Harbour Tools", "Harbour Tools Ltd"));
    const e = await refused(ws, "PRECONDITION_FAILED", 3);
    expect(e.detail.status).toBe("partial");
    const failed = e.detail.items.filter((i: any) => i.outcome === "failed");
    expect(failed.map((i: any) => i.action)).toEqual(["fix-broken-link"]);
    expect(e.detail.items.filter((i: any) => i.outcome === "applied").length).toBe(e.detail.items.length - 1);
    expect(readFileSync(index, "utf8")).toContain('href="/abuot.html"');
    expect(readFileSync(join(ws.site, "about.html"), "utf8")).toContain('lang="en"');
  });

  test("a plan that failed while planning can never be applied: PLAN_FAILED, exit 3", async () => {
    const ws = await workspace({ door: "in-process" });
    rmSync(join(ws.site, "about.html"));
    const p = await ws.seo(["plan", "--run-dir", ws.run]);
    expect(p.json.error.code).toBe("INVALID_INPUT");
    expect(readPlan(ws).status).toBe("failed");
    const g = await ws.gate(["review", "--plan", ws.run]);
    expect(g.json.error.code).toBe("PLAN_FAILED");
    await refused(ws, "PLAN_FAILED", 3);
  });

  test("the same idempotency key with different params: CONFLICT, never a replay", async () => {
    const ws = await workspace({ door: "in-process" });
    await reviewed(ws);
    expect((await ws.seo(["apply", "--plan", ws.run])).code).toBe(0);
    const plan = readPlan(ws);
    const item = plan.items.find((i: any) => i.action === "set-lang");
    item.params.lang = "de";
    item.params.edits[0].insert = ' lang="de"';
    for (const k of ["policy_version", "approval_id", "approval"]) plan[k] = null;
    plan.checksum = planChecksum(plan);
    writePlan(ws, plan);
    expect((await ws.gate(["approve", "--plan", ws.run])).code).toBe(0);
    const e = await refused(ws, "CONFLICT", 3);
    expect(e.detail.items.find((i: any) => i.id === item.id).error.code).toBe("CONFLICT");
    expect(readFileSync(join(ws.site, "about.html"), "utf8")).toContain('lang="en"');
  });

  test("no public key in the environment: MISSING_ENV naming it, exit 3", async () => {
    const ws = await workspace({ door: "in-process" });
    await reviewed(ws);
    const e = await refused(ws, "MISSING_ENV", 3, { AGENT_GATE_PUBLIC_KEY: "" });
    expect(e.hint).toContain("AGENT_GATE_PUBLIC_KEY");
  });

  test("--dry-run validates everything and reports what would execute, changing nothing", async () => {
    const ws = await workspace({ door: "in-process" });
    await reviewed(ws);
    const before = readFileSync(join(ws.site, "index.html"), "utf8");
    const r = await ws.seo(["apply", "--plan", ws.run, "--dry-run"]);
    expect(r.code).toBe(0);
    expect(r.json.data.status).toBe("dry-run");
    expect(new Set(r.json.data.items.map((i: any) => i.outcome))).toEqual(new Set(["would-apply"]));
    expect(readFileSync(join(ws.site, "index.html"), "utf8")).toBe(before);
    expect((await ws.seo(["action", "list", "--plan", ws.run])).json.data.items).toEqual([]);
  });
});

describe("the gate", () => {
  test("recomputes bounds from params and the live read-back, and asks a person when they exceed policy", async () => {
    const ws = await workspace({ door: "in-process" });
    writePolicy(ws.dir, "p1", { "add-meta-description": { max_write_bytes: 100 } });
    expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
    // Under-reporting the impact changes nothing: the gate never reads it (and the checksum would break).
    const r = await ws.gate(["review", "--plan", ws.run]);
    expect(r.code).toBe(5);
    expect(r.json.error.code).toBe("APPROVAL_REQUIRED");
    expect(r.json.error.detail.exceeded.join("\n")).toContain("add-meta-description): writes up to");
    expect(readPlan(ws).approval).toBeNull();
    // Who approved is the name the policy gives the key that signed.
    const human = await ws.gate(["approve", "--plan", ws.run]);
    expect(human.code).toBe(0);
    expect(readPlan(ws).approval).toMatchObject({ mode: "human", approved_by: APPROVER.name });
    expect((await ws.seo(["apply", "--plan", ws.run])).code).toBe(0);
  });

  test("an action the policy does not list, and a plan over the item limit, need a person", async () => {
    const ws = await workspace({ door: "in-process" });
    writeFileSync(
      join(ws.dir, "policy.json"),
      JSON.stringify({
        version: "p1",
        max_items: 2,
        actions: { "seo.set-lang": { auto_approve: true } },
        tools: { seo: { fleet: true } },
        roots: { seo: [ws.dir] },
      }),
    );
    expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
    const r = await ws.gate(["review", "--plan", ws.run]);
    expect(r.json.error.code).toBe("APPROVAL_REQUIRED");
    const reasons = r.json.error.detail.exceeded.join("\n");
    expect(reasons).toContain("auto-approves at most 2");
    expect(reasons).toContain("seo.add-viewport is not covered by policy p1");
  });

  test("refuses to approve a plan whose targets changed since planning", async () => {
    const ws = await workspace({ door: "in-process" });
    expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
    writeFileSync(join(ws.site, "about.html"), "<html><head></head></html>\n");
    const r = await ws.gate(["review", "--plan", ws.run]);
    expect(r.json.error.code).toBe("PRECONDITION_FAILED");
    expect(r.code).toBe(3);
  });
});
