import { dirname, join } from "node:path";
import * as z from "zod/mini";
import { GATE_PRIVATE_KEY_ENV, approve, candidate } from "../../../src/gate/approve.ts";
import { judge } from "../../../src/gate/judge.ts";
import { readBack } from "../../../src/gate/readback.ts";
import { defineCommand, describe, KitError } from "../../../src/kit/index.ts";
import { GATE_ENV, approvalResult, planFlag } from "./shared.ts";

export default defineCommand({
  verb: "review",
  tier: 2,
  rw: "write",
  summary: "Judge a plan against the standing policy: approve it (signing it) or answer APPROVAL_REQUIRED with what exceeded which limit.",
  description:
    "Recomputes every item's bound from its raw params and a live read-back through the tool (`<tool> target list`), never from the tool's projected_impact. Within policy, signs the plan's checksum, policy version and expiry, and writes the approval into the plan. Outside it, exits 5 with the limits exceeded; a person may then run `gate approve`.",
  flags: z.object({
    plan: planFlag,
    tool: describe(z.optional(z.string()), "The binary of the tool that made the plan (default: the one beside this gate, named by the plan)."),
  }),
  result: approvalResult,
  schema: "gate.review@1",
  errors: ["NOT_FOUND", "MISSING_ARTIFACT", "PLAN_INVALID", "PLAN_FAILED", "PLAN_TAMPERED", "PLAN_EXPIRED", "PRECONDITION_FAILED", "APPROVAL_REQUIRED", "INVALID_INPUT", "UPSTREAM_ERROR", "MISSING_ENV"],
  env: GATE_ENV,
  examples: [{ argv: ["--plan", "./run"], summary: "Approve the plan in ./run if the standing policy allows it." }],
  async run(ctx) {
    const c = candidate(ctx.flags.plan, ctx.cwd, ctx.env, ctx.now());
    const { plan, policy } = c;
    const toolBinary = ctx.flags.tool ?? join(dirname(process.execPath), plan.tool);
    const live = await readBack(toolBinary, c.path, ctx.env, [GATE_PRIVATE_KEY_ENV], ctx.signal);
    const verdict = judge(plan, policy, live);
    if (verdict.stale.length > 0)
      throw new KitError("PRECONDITION_FAILED", `${verdict.stale.length} target(s) changed since the plan was made: ${verdict.stale.map((s) => s.target).join(", ")}`, {
        detail: { stale: verdict.stale },
        hint: "plan the change again",
      });
    const reasons = [...verdict.exceeded, ...verdict.items.flatMap((i) => i.exceeded.map((e) => `${i.id} (${i.action}): ${e}`))];
    if (reasons.length > 0)
      throw new KitError("APPROVAL_REQUIRED", `policy ${policy.version} does not cover this plan: ${reasons[0]}${reasons.length > 1 ? ` (and ${reasons.length - 1} more)` : ""}`, {
        detail: { policy_version: policy.version, exceeded: reasons, items: verdict.items },
        hint: `a person must decide: \`gate approve --plan ${ctx.flags.plan} --by NAME\``,
      });
    return approve(c, ctx.env[GATE_PRIVATE_KEY_ENV]!, "policy", `policy ${policy.version}`, ctx.now(), verdict.items);
  },
});
