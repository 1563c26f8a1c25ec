/** What both gate commands take and read. */
import * as z from "agent-cli-kit/schema";
import { describe, type EnvVar } from "agent-cli-kit";
import { GATE_PRIVATE_KEY_ENV } from "../../../src/gate/approve.ts";
import { POLICY_ENV } from "agent-cli-kit/writes";

export const planFlag = describe(z.string().check(z.minLength(1)), "The plan to judge: a plan.json path, or the run dir that holds it.");

export const GATE_ENV: EnvVar[] = [
  { name: GATE_PRIVATE_KEY_ENV, scope: "write", required: true, description: "The gate's Ed25519 private key (PEM or base64 PKCS#8 DER); approvals are signed with it." },
  { name: POLICY_ENV, scope: "config", required: true, description: "The standing policy file (JSON): its version, item limit and per-action limits." },
];

export const approvalResult = z.object({
  decision: z.literal("approved"),
  plan: z.string(),
  checksum: z.string(),
  approval_id: z.string(),
  policy_version: z.string(),
  expiry: z.string(),
  mode: z.enum(["policy", "human"]),
  items: z.array(z.object({ id: z.string(), action: z.string(), write_bytes: z.int(), target_bytes: z.int(), exceeded: z.array(z.string()) })),
});
