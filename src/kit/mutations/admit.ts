/**
 * contract §8, admission: everything that must hold before any item of a
 * plan runs, each failure with its own code: intact, approved (the gate's
 * signature verifies with the gate's public key, or a person's with the key
 * the policy names for them), for this plan, unexpired, and under the policy
 * that is current now.
 */
import { KitError } from "../output/index.ts";
import { sha256 } from "../pipeline/index.ts";
import { assertIntact, assertUnexpired, type Approval, type Plan } from "./plan.ts";
import { POLICY_ENV, readPolicy, type Policy } from "./policy.ts";

export const GATE_PUBLIC_KEY_ENV = "AGENT_GATE_PUBLIC_KEY";

const PERSON_HINT =
  "a person the policy names approves it: `gate approve --plan PLAN`, their key in AGENT_APPROVER_KEY";

/** The key an approval must verify with: the gate's for the policy's own, the named person's for a person's. */
function signerOf(
  a: Approval,
  policy: Policy,
  env: Readonly<Record<string, string | undefined>>,
): { key: string; variable: string; approver?: string } {
  // Both variables are declared required on apply: the kit has refused to run without them.
  if (a.mode === "policy") return { key: env[GATE_PUBLIC_KEY_ENV]!, variable: GATE_PUBLIC_KEY_ENV };
  if (a.mode !== "human")
    throw new KitError(
      "APPROVAL_INVALID",
      `the approval's mode '${String(a.mode).slice(0, 40)}' is neither policy nor human`,
      { hint: "have the gate review the plan: `gate review --plan PLAN`" },
    );
  const names = (policy.approvers ?? []).map((p) => p.name);
  const i = names.indexOf(a.approved_by);
  if (i < 0)
    throw new KitError(
      "POLICY_DENIED",
      `the plan is approved by '${String(a.approved_by).slice(0, 200)}', whom policy ${policy.version} does not name as an approver`,
      {
        got: a.approved_by,
        allowed: names,
        hint: PERSON_HINT,
      },
    );
  return {
    key: policy.approvers![i]!.public_key,
    variable: `the key policy ${policy.version} names for ${a.approved_by}`,
    approver: a.approved_by,
  };
}

/** Everything that must hold before any item runs, each failure its own code; the current policy. */
export async function admit(
  plan: Plan,
  env: Readonly<Record<string, string | undefined>>,
  now: number,
  toolName: string,
): Promise<Policy> {
  const apply = `${toolName} apply --plan`;
  assertIntact(plan);
  const a = plan.approval;
  if (!a || !plan.approval_id || !plan.policy_version)
    throw new KitError("APPROVAL_REQUIRED", "the plan has no approval", {
      hint: `have the gate review it: \`gate review --plan PLAN\` (or ${PERSON_HINT})`,
    });
  if (a.checksum !== plan.checksum || a.expiry !== plan.expiry || a.policy_version !== plan.policy_version)
    throw new KitError(
      "APPROVAL_MISMATCH",
      "the approval was given for a different plan (its checksum, expiry or policy version differ)",
      {
        detail: { plan: plan.checksum, approved: a.checksum },
        hint: "have the gate review this plan itself",
      },
    );
  const policy = readPolicy(env[POLICY_ENV]!);
  const signer = signerOf(a, policy, env);
  const { verifyApproval } = await import("./approval.ts");
  const what = {
    checksum: a.checksum,
    policyVersion: a.policy_version,
    expiry: a.expiry,
    roots: a.roots ?? {},
    approver: signer.approver,
  };
  if (!verifyApproval(signer.key, signer.variable, what, a.signature) || plan.approval_id !== approvalIdOf(a.signature))
    throw new KitError(
      "APPROVAL_INVALID",
      signer.approver === undefined
        ? "the approval's signature does not verify with the gate's public key"
        : `the approval's signature does not verify with the key policy ${policy.version} names for ${signer.approver}`,
      {
        hint:
          signer.approver === undefined ? "only the gate can approve a plan: `gate review --plan PLAN`" : PERSON_HINT,
      },
    );
  assertUnexpired(plan, now);
  if (policy.version !== plan.policy_version)
    throw new KitError(
      "POLICY_STALE",
      `the plan was approved under policy ${plan.policy_version}, but the policy is now ${policy.version}`,
      {
        got: plan.policy_version,
        allowed: [policy.version],
        hint: `have the gate review it again under the current policy: \`gate review --plan PLAN\`; then \`${apply}\``,
      },
    );
  return policy;
}

export const approvalIdOf = (signature: string): string =>
  `apr-${sha256(signature).slice("sha256:".length, "sha256:".length + 16)}`;
