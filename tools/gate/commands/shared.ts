/** What both gate commands take and read. */
import * as z from "agent-cli-kit/schema";
import { describe, type EnvVar } from "agent-cli-kit";
import { APPROVER_KEY_ENV, GATE_PRIVATE_KEY_ENV } from "../../../src/gate/approve.ts";
import { POLICY_ENV } from "agent-cli-kit/writes";

export const planFlag = describe(
  z.string().check(z.minLength(1)),
  "The plan to judge: a plan.json path, or the run dir that holds it.",
);

const POLICY: EnvVar = {
  name: POLICY_ENV,
  scope: "config",
  required: true,
  description:
    "The standing policy file (JSON): its version, item limit, per-action limits, the tools it governs, roots and approvers.",
};

/** What review reads: the gate's own key signs what the standing policy approves. */
export const REVIEW_ENV: EnvVar[] = [
  {
    name: GATE_PRIVATE_KEY_ENV,
    scope: "write",
    required: true,
    description:
      "The gate's Ed25519 private key (PEM or base64 PKCS#8 DER); approvals within the standing policy are signed with it.",
  },
  POLICY,
];

/** What approve reads: a person's own key, which the policy names; never the gate's. */
export const APPROVE_ENV: EnvVar[] = [
  {
    name: APPROVER_KEY_ENV,
    scope: "write",
    required: true,
    description:
      "The approving person's Ed25519 private key (PEM or base64 PKCS#8 DER); the policy's approvers must name its public key, and the approval records that name.",
  },
  POLICY,
];

export const approvalResult = z.object({
  decision: z.literal("approved"),
  plan: z.string(),
  checksum: z.string(),
  approval_id: z.string(),
  policy_version: z.string(),
  expiry: z.string(),
  mode: z.enum(["policy", "human"]),
  approved_by: describe(
    z.string(),
    "Who approved: `policy VERSION` for the gate, else the name the policy gives the approver's key.",
  ),
  total: describe(z.optional(z.int()), "How many items the plan holds."),
  counts: describe(z.optional(z.record(z.string(), z.int())), "How many items per action."),
  items: z.array(
    z.object({
      id: z.string(),
      action: z.string(),
      write_bytes: z.int(),
      target_bytes: z.int(),
      exceeded: z.array(z.string()),
    }),
  ),
});
