import * as z from "zod/mini";
import { GATE_PRIVATE_KEY_ENV, approve, candidate } from "../../../src/gate/approve.ts";
import { writeBytes } from "../../../src/gate/judge.ts";
import { defineCommand, describe } from "../../../src/kit/index.ts";
import { GATE_ENV, approvalResult, planFlag } from "./shared.ts";

export default defineCommand({
  verb: "approve",
  tier: 2,
  rw: "write",
  summary: "A person's explicit approval of a plan the policy does not cover: signs it under the current policy version.",
  description: "The human path after `gate review` answered APPROVAL_REQUIRED. Still refuses a failed, tampered or expired plan. Records who approved.",
  flags: z.object({
    plan: planFlag,
    by: describe(z.string().check(z.minLength(1), z.maxLength(200)), "Who approves: recorded in the plan's approval and the action log."),
  }),
  result: approvalResult,
  schema: "gate.approve@1",
  errors: ["NOT_FOUND", "MISSING_ARTIFACT", "PLAN_INVALID", "PLAN_FAILED", "PLAN_TAMPERED", "PLAN_EXPIRED", "INVALID_INPUT", "MISSING_ENV"],
  env: GATE_ENV,
  examples: [{ argv: ["--plan", "./run", "--by", "ada@example.com"], summary: "Approve the plan in ./run on a person's say-so." }],
  async run(ctx) {
    const c = candidate(ctx.flags.plan, ctx.cwd, ctx.env, ctx.now());
    // A person's decision: no read-back, so the targets' sizes are not reported.
    const items = c.plan.items.map((i) => ({ id: i.id, action: i.action, write_bytes: writeBytes(i.params), target_bytes: 0, exceeded: [] }));
    return approve(c, ctx.env[GATE_PRIVATE_KEY_ENV]!, "human", ctx.flags.by, ctx.now(), items);
  },
});
