/** Checks a plan is fit to approve, and writes the signed approval into it. */
import { signApproval } from "../kit/approval.ts";
import { KitError } from "../kit/errors.ts";
import { approvalIdOf } from "../kit/mutations.ts";
import { planChecksum, writePlanFile, type Plan } from "../kit/plan.ts";

export const GATE_PRIVATE_KEY_ENV = "AGENT_GATE_PRIVATE_KEY";

/** What the gate refuses to approve at all, whoever asks. */
export function admissible(plan: Plan, now: number): void {
  if (plan.status === "failed") throw new KitError("PLAN_FAILED", `the plan failed while planning (${plan.failure?.code}: ${plan.failure?.message}); it can never be approved`, { hint: "plan again" });
  if (planChecksum(plan) !== plan.checksum) throw new KitError("PLAN_TAMPERED", "the plan's contents do not match its checksum", { hint: "plan again; never edit a plan by hand" });
  if (Date.parse(plan.expiry) <= now) throw new KitError("PLAN_EXPIRED", `the plan expired at ${plan.expiry}`, { hint: "plan again" });
}

export function approve(planPath: string, plan: Plan, policyVersion: string, privateKey: string, mode: "policy" | "human", by: string, now: number): Plan {
  const signature = signApproval(privateKey, GATE_PRIVATE_KEY_ENV, plan.checksum, policyVersion, plan.expiry);
  const approved: Plan = {
    ...plan,
    policy_version: policyVersion,
    approval_id: approvalIdOf(signature),
    approval: { checksum: plan.checksum, policy_version: policyVersion, expiry: plan.expiry, mode, approved_by: by, approved_at: new Date(now).toISOString(), signature },
  };
  writePlanFile(planPath, approved);
  return approved;
}
