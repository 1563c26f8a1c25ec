/**
 * contract §8, admission: everything that must hold before any item of a
 * plan runs, each failure with its own code: intact, approved by the gate
 * (its signature verifies with the gate's public key), for this plan,
 * unexpired, and under the policy that is current now.
 */
import { KitError } from "../output/errors.ts";
import { sha256 } from "../pipeline/hash.ts";
import { assertIntact, assertUnexpired, type Plan } from "./plan.ts";
import { POLICY_ENV, readPolicy, type Policy } from "./policy.ts";

export const GATE_PUBLIC_KEY_ENV = "AGENT_GATE_PUBLIC_KEY";

/** Everything that must hold before any item runs, each failure its own code; the current policy. */
export async function admit(plan: Plan, env: Readonly<Record<string, string | undefined>>, now: number, toolName: string): Promise<Policy> {
  const apply = `${toolName} apply --plan`;
  assertIntact(plan);
  const a = plan.approval;
  if (!a || !plan.approval_id || !plan.policy_version)
    throw new KitError("APPROVAL_REQUIRED", "the plan has no approval", { hint: "have the gate review it: `gate review --plan PLAN` (or a person: `gate approve --plan PLAN --by NAME`)" });
  if (a.checksum !== plan.checksum || a.expiry !== plan.expiry || a.policy_version !== plan.policy_version)
    throw new KitError("APPROVAL_MISMATCH", "the approval was given for a different plan (its checksum, expiry or policy version differ)", {
      detail: { plan: plan.checksum, approved: a.checksum },
      hint: "have the gate review this plan itself",
    });
  // Both variables are declared required on apply: the kit has refused to run without them.
  const publicKey = env[GATE_PUBLIC_KEY_ENV]!;
  const { verifyApproval } = await import("./approval.ts");
  const approved = { checksum: a.checksum, policyVersion: a.policy_version, expiry: a.expiry, roots: a.roots ?? {} };
  if (!verifyApproval(publicKey, GATE_PUBLIC_KEY_ENV, approved, a.signature) || plan.approval_id !== approvalIdOf(a.signature))
    throw new KitError("APPROVAL_INVALID", "the approval's signature does not verify with the gate's public key", { hint: "only the gate can approve a plan: `gate review --plan PLAN`" });
  assertUnexpired(plan, now);
  const policy = readPolicy(env[POLICY_ENV]!);
  const current = policy.version;
  if (current !== plan.policy_version)
    throw new KitError("POLICY_STALE", `the plan was approved under policy ${plan.policy_version}, but the policy is now ${current}`, {
      got: plan.policy_version,
      allowed: [current],
      hint: `have the gate review it again under the current policy: \`gate review --plan PLAN\`; then \`${apply}\``,
    });
  return policy;
}

export const approvalIdOf = (signature: string): string => `apr-${sha256(signature).slice("sha256:".length, "sha256:".length + 16)}`;
