import * as z from "agent-cli-kit/schema";
import { GATE_PRIVATE_KEY_ENV, approve, candidate } from "../../../src/gate/approve.ts";
import { judge } from "../../../src/gate/judge.ts";
import { readBack } from "../../../src/gate/readback.ts";
import { defineCommand, describe } from "agent-cli-kit";
import { GATE_ENV, approvalResult, planFlag } from "./shared.ts";

export default defineCommand({
  verb: "approve",
  tier: 2,
  rw: "write",
  summary: "A person's explicit approval of a plan the policy does not cover: signs it under the current policy version.",
  description:
    "The human path after `gate review` answered APPROVAL_REQUIRED. A person approves the impact, never a malformed or out-of-scope plan: the same checks as review refuse a failed, tampered or expired plan, a tool the gate does not know, a root outside the policy's roots, and targets the tool refuses. Records who approved, and the targets' live sizes.",
  flags: z.object({
    plan: planFlag,
    by: describe(z.string().check(z.minLength(1), z.maxLength(200)), "Who approves: recorded in the plan's approval and the action log."),
  }),
  result: approvalResult,
  schema: "gate.approve@1",
  errors: ["NOT_FOUND", "MISSING_ARTIFACT", "PLAN_INVALID", "PLAN_FAILED", "PLAN_TAMPERED", "PLAN_EXPIRED", "POLICY_DENIED", "INVALID_INPUT", "UPSTREAM_ERROR", "MISSING_ENV"],
  env: GATE_ENV,
  examples: [{ argv: ["--plan", "./run", "--by", "ada@example.com"], summary: "Approve the plan in ./run on a person's say-so." }],
  async run(ctx) {
    const c = candidate(ctx.flags.plan, ctx.cwd, ctx.env, ctx.now());
    // A person's decision on the policy's limits, but the read-back still proves the targets are the tool's to touch.
    const live = await readBack(c.tool, c.path, ctx.env, ctx.signal);
    const items = judge(c.plan, c.policy, live).items.map((i) => ({ ...i, exceeded: [] }));
    return approve(c, ctx.env[GATE_PRIVATE_KEY_ENV]!, "human", ctx.flags.by, ctx.now(), items);
  },
});
