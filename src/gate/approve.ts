/** Checks a plan is fit to approve, and writes the signed approval into it. */
import { APPROVER_KEY_ENV, approverOfKey, signApproval } from "../kit/mutations/approval.ts";
import { approvalIdOf } from "../kit/mutations/admit.ts";
import {
  assertIntact,
  assertUnexpired,
  readPlanFile,
  resolvePlanPath,
  writePlanFile,
  type Plan,
} from "../kit/mutations/plan.ts";
import { POLICY_ENV, readPolicy, type Policy } from "../kit/mutations/policy.ts";
import { KitError } from "../kit/output/errors.ts";
import type { ItemBound } from "./judge.ts";
import { assertDeclaredActions, type Declaration, declarationOf } from "./readback.ts";
import { assertInScope, type GovernedTool, governedTool } from "./scope.ts";

export const GATE_PRIVATE_KEY_ENV = "AGENT_GATE_PRIVATE_KEY";
export { APPROVER_KEY_ENV };

export interface Candidate {
  readonly path: string;
  readonly plan: Plan;
  readonly policy: Policy;
  /** The tool the plan is of, as the policy governs it: what reads the plan's targets back. */
  readonly tool: GovernedTool;
  /** What that tool declares of its writes (its root field, actions, read-back environment). */
  readonly declared: Declaration;
  /** The real path of the folder the plan acts on, keyed by its context field: what the approval binds. */
  readonly roots: Record<string, string>;
}

/** Who signs: the gate under its standing policy, or a person the policy names, by the key they hold. */
export type Signer =
  | { readonly mode: "policy"; readonly privateKey: string }
  | { readonly mode: "human"; readonly privateKey: string; readonly name: string };

/**
 * The plan `--plan` names and the standing policy; refuses what the gate never
 * approves, whoever asks (review or a person): a failed, tampered or expired
 * plan, a tool the policy does not govern (or whose binary is not the one it
 * trusts), an action the tool does not declare, a root outside the policy's roots.
 */
export async function candidate(
  ref: string,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  now: number,
  signal: AbortSignal,
): Promise<Candidate> {
  const path = resolvePlanPath(ref, cwd);
  const policyPath = env[POLICY_ENV]!;
  const policy = readPolicy(policyPath);
  const plan = readPlanFile(path, null);
  assertIntact(plan);
  assertUnexpired(plan, now);
  const tool = governedTool(plan, policy, policyPath);
  const declared = await declarationOf(tool, env, signal);
  assertDeclaredActions(plan, declared);
  const roots = assertInScope(plan, policy, policyPath, declared.root);
  return { path, plan, policy, tool, declared, roots };
}

/**
 * The person whose key is in AGENT_APPROVER_KEY, by the name the policy gives
 * that key: who they are comes from the key, never from what a caller says.
 * A key the policy does not name approves nothing (POLICY_DENIED, exit 5).
 */
export function person(policy: Policy, privateKey: string): Signer {
  const found = approverOfKey(policy, privateKey, APPROVER_KEY_ENV);
  if (!found)
    throw new KitError(
      "POLICY_DENIED",
      `the key in ${APPROVER_KEY_ENV} is not one policy ${policy.version} names as an approver`,
      {
        allowed: (policy.approvers ?? []).map((a) => a.name),
        hint: 'an approver\'s public key must be in the policy\'s approvers: [{ "name": …, "public_key": … }]; only a person it names approves',
      },
    );
  return { mode: "human", privateKey, name: found.name };
}

/** Signs the plan's checksum, policy version, expiry and real roots (and a person's name), writes the approval into the plan, and reports it. */
export function approve(c: Candidate, signer: Signer, now: number, items: readonly ItemBound[]) {
  const { plan, policy, roots } = c;
  const approver = signer.mode === "human" ? signer.name : undefined;
  const variable = signer.mode === "human" ? APPROVER_KEY_ENV : GATE_PRIVATE_KEY_ENV;
  const signature = signApproval(signer.privateKey, variable, {
    checksum: plan.checksum,
    policyVersion: policy.version,
    expiry: plan.expiry,
    roots,
    approver,
  });
  const approvalId = approvalIdOf(signature);
  const by = approver ?? `policy ${policy.version}`;
  const mode = signer.mode;
  writePlanFile(c.path, {
    ...plan,
    policy_version: policy.version,
    approval_id: approvalId,
    approval: {
      checksum: plan.checksum,
      policy_version: policy.version,
      expiry: plan.expiry,
      roots,
      mode,
      approved_by: by,
      approved_at: new Date(now).toISOString(),
      signature,
    },
  });
  return {
    decision: "approved" as const,
    plan: c.path,
    checksum: plan.checksum,
    approval_id: approvalId,
    policy_version: policy.version,
    expiry: plan.expiry,
    mode,
    approved_by: by,
    items: [...items],
  };
}
