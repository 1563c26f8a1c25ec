import * as z from "agent-cli-kit/schema";
import { APPROVER_KEY_ENV, approve, candidate, person } from "../../../src/gate/approve.ts";
import { judge } from "../../../src/gate/judge.ts";
import { readBack } from "../../../src/gate/readback.ts";
import { defineCommand } from "agent-cli-kit";
import { showItems } from "agent-cli-kit/writes";
import { APPROVE_ENV, approvalResult, planFlag } from "./shared.ts";

export default defineCommand({
  verb: "approve",
  tier: 2,
  rw: "write",
  // An approval is a person's act: no MCP profile, declared tool or job step offers it.
  person: true,
  summary:
    "A person's explicit approval of a plan the policy does not cover: signs it with their own key, which the policy names.",
  description:
    "The human path after `gate review` answered APPROVAL_REQUIRED, run by a person at the command line (never over MCP, as a declared tool or as a job step). Who approves is the name the policy's approvers give the key in AGENT_APPROVER_KEY, never a name the caller says; a key the policy does not name is refused (POLICY_DENIED). A person approves the impact, never a malformed or out-of-scope plan: the same checks as review refuse a failed, tampered or expired plan, a tool the policy does not name (or whose binary is not the one it trusts), a root outside the policy's roots, and targets the tool refuses. Records the approver's name, and the targets' live sizes.",
  flags: z.object({ plan: planFlag }),
  result: approvalResult,
  schema: "gate.approve@1",
  errors: [
    "NOT_FOUND",
    "MISSING_ARTIFACT",
    "PLAN_INVALID",
    "PLAN_FAILED",
    "PLAN_TAMPERED",
    "PLAN_EXPIRED",
    "POLICY_DENIED",
    "INVALID_INPUT",
    "UPSTREAM_ERROR",
    "MISSING_ENV",
  ],
  env: APPROVE_ENV,
  examples: [
    { argv: ["--plan", "./run"], summary: "Approve the plan in ./run, signed with the key in AGENT_APPROVER_KEY." },
  ],
  async run(ctx) {
    const c = await candidate(ctx.flags.plan, ctx.cwd, ctx.env, ctx.now(), ctx.signal);
    const signer = person(c.policy, ctx.env[APPROVER_KEY_ENV]!);
    // A person's decision on the policy's limits, but the read-back still proves the targets are the tool's to touch.
    const live = await readBack(c.tool, c.declared, c.path, ctx.env, ctx.signal);
    const items = judge(c.plan, c.policy, live).items.map((i) => ({ ...i, exceeded: [] }));
    const approved = approve(c, signer, ctx.now(), items);
    // A person's act at the command line, no list to page: the first page of the items, and the counts of them all.
    ctx.next(`${c.plan.tool} apply --plan ${ctx.flags.plan}`);
    return {
      ...approved,
      ...showItems(ctx, approved.items, { tool: c.plan.tool, plan: ctx.flags.plan }, (i) => i.action),
    };
  },
});
