import * as z from "agent-cli-kit/schema";
import { GATE_PRIVATE_KEY_ENV, approve, candidate } from "../../../src/gate/approve.ts";
import { judge } from "../../../src/gate/judge.ts";
import { readBack } from "../../../src/gate/readback.ts";
import { defineCommand, KitError } from "agent-cli-kit";
import { PLAN_LIST, showItems } from "agent-cli-kit/writes";
import { REVIEW_ENV, approvalResult, planFlag } from "./shared.ts";

export default defineCommand({
  verb: "review",
  tier: 2,
  rw: "write",
  summary:
    "Judge a plan against the standing policy: approve it (signing it) or answer APPROVAL_REQUIRED with what exceeded which limit.",
  description:
    "Refuses a plan of a tool the policy does not name (the hint is the entry to add), or whose binary is not the one it trusts, or acting outside the roots the policy names for its tool (POLICY_DENIED). Judges the plan by what its tool declares in its own `target list --describe`: its root field and actions. Recomputes every item's bound from its raw params and a live read-back through the tool (`<tool> target list`, run with only the variables it declares), never from the tool's projected_impact. Within policy, signs the plan's checksum, policy version and expiry, and writes the approval into the plan. Outside it, exits 5 with the limits exceeded; a person the policy names as an approver may then run `gate approve` with their own key.",
  flags: z.object({ plan: planFlag }),
  result: approvalResult,
  schema: "gate.review@1",
  errors: [
    "NOT_FOUND",
    "MISSING_ARTIFACT",
    "PLAN_INVALID",
    "PLAN_FAILED",
    "PLAN_TAMPERED",
    "PLAN_EXPIRED",
    "PRECONDITION_FAILED",
    "APPROVAL_REQUIRED",
    "POLICY_DENIED",
    "INVALID_INPUT",
    "UPSTREAM_ERROR",
    "MISSING_ENV",
  ],
  env: REVIEW_ENV,
  list: PLAN_LIST,
  examples: [{ argv: ["--plan", "./run"], summary: "Approve the plan in ./run if the standing policy allows it." }],
  async run(ctx) {
    const c = await candidate(ctx.flags.plan, ctx.cwd, ctx.env, ctx.now(), ctx.signal);
    const { plan, policy } = c;
    const live = await readBack(c.tool, c.declared, c.path, ctx.env, ctx.signal);
    const verdict = judge(plan, policy, live);
    if (verdict.stale.length > 0)
      throw new KitError(
        "PRECONDITION_FAILED",
        `${verdict.stale.length} target(s) changed since the plan was made: ${verdict.stale.map((s) => s.target).join(", ")}`,
        {
          detail: { stale: verdict.stale },
          hint: "plan the change again",
        },
      );
    const reasons = [
      ...verdict.exceeded,
      ...verdict.items.flatMap((i) => i.exceeded.map((e) => `${i.id} (${i.action}): ${e}`)),
    ];
    if (reasons.length > 0)
      throw new KitError(
        "APPROVAL_REQUIRED",
        `policy ${policy.version} does not cover this plan: ${reasons[0]}${reasons.length > 1 ? ` (and ${reasons.length - 1} more)` : ""}`,
        {
          detail: { policy_version: policy.version, exceeded: reasons, items: verdict.items },
          // What makes it a person's act is their key, which no agent holds; a terminal proves nothing (docs/trust.md).
          hint: `a person the policy names as an approver must decide: \`gate approve --plan ${ctx.flags.plan}\`, with their own key in AGENT_APPROVER_KEY; no agent's door (MCP, declared tools, a job step) offers it`,
        },
      );
    const approved = approve(
      c,
      { mode: "policy", privateKey: ctx.env[GATE_PRIVATE_KEY_ENV]! },
      ctx.now(),
      verdict.items,
    );
    // The next step is the tool's own apply; the answer shows the first page of the items judged.
    ctx.next(`${c.plan.tool} apply --plan ${ctx.flags.plan}`);
    return {
      ...approved,
      ...showItems(ctx, approved.items, { tool: c.plan.tool, plan: ctx.flags.plan }, (i) => i.action),
    };
  },
});
