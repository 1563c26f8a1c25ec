/** Checks a plan is fit to approve, and writes the signed approval into it. */
import { signApproval } from "../kit/mutations/approval.ts";
import { approvalIdOf } from "../kit/mutations/admit.ts";
import { assertIntact, assertUnexpired, readPlanFile, resolvePlanPath, writePlanFile, type Plan } from "../kit/mutations/plan.ts";
import { POLICY_ENV, readPolicy, type Policy } from "../kit/mutations/policy.ts";
import type { ItemBound } from "./judge.ts";
import { assertInScope, toolBinary } from "./scope.ts";

export const GATE_PRIVATE_KEY_ENV = "AGENT_GATE_PRIVATE_KEY";

export interface Candidate {
  readonly path: string;
  readonly plan: Plan;
  readonly policy: Policy;
  /** The argv of the fleet tool that reads the plan's targets back, as the gate resolved it. */
  readonly tool: string[];
  /** The real path of the folder the plan acts on, keyed by its context field: what the approval binds. */
  readonly roots: Record<string, string>;
}

/**
 * The plan `--plan` names and the standing policy; refuses what the gate never
 * approves, whoever asks (review or a person): a failed, tampered or expired
 * plan, a tool the gate does not know, a root outside the policy's roots.
 */
export function candidate(ref: string, cwd: string, env: Readonly<Record<string, string | undefined>>, now: number): Candidate {
  const path = resolvePlanPath(ref, cwd);
  const policyPath = env[POLICY_ENV]!;
  const policy = readPolicy(policyPath);
  const plan = readPlanFile(path, null);
  assertIntact(plan);
  assertUnexpired(plan, now);
  const tool = toolBinary(plan);
  const roots = assertInScope(plan, policy, policyPath);
  return { path, plan, policy, tool, roots };
}

/** Signs the plan's checksum, policy version, expiry and real root, writes the approval into the plan, and reports it. */
export function approve(c: Candidate, privateKey: string, mode: "policy" | "human", by: string, now: number, items: readonly ItemBound[]) {
  const { plan, policy, roots } = c;
  const signature = signApproval(privateKey, GATE_PRIVATE_KEY_ENV, { checksum: plan.checksum, policyVersion: policy.version, expiry: plan.expiry, roots });
  const approvalId = approvalIdOf(signature);
  writePlanFile(c.path, {
    ...plan,
    policy_version: policy.version,
    approval_id: approvalId,
    approval: { checksum: plan.checksum, policy_version: policy.version, expiry: plan.expiry, roots, mode, approved_by: by, approved_at: new Date(now).toISOString(), signature },
  });
  return { decision: "approved" as const, plan: c.path, checksum: plan.checksum, approval_id: approvalId, policy_version: policy.version, expiry: plan.expiry, mode, items: [...items] };
}
