/**
 * Ed25519 approvals: the gate signs with its private key what the standing
 * policy approves; a person signs with their own key, which the policy names
 * (`approvers`), what it does not. `apply` verifies with the public key of
 * whichever signed. Keys are PEM (PKCS#8 private, SPKI public) or the same
 * DER in base64 on one line, which fits an environment variable.
 * node:crypto is imported here only, on the paths that sign or verify.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { KitError } from "../output/index.ts";
import { approvalMessage, type Approved } from "./plan.ts";
import type { Approver, Policy } from "./policy.ts";

export { APPROVER_KEY_ENV } from "./policy.ts";

function keyFrom(text: string, kind: "private" | "public", variable: string): KeyObject {
  const trimmed = text.trim();
  try {
    const key = trimmed.startsWith("-----")
      ? kind === "private"
        ? createPrivateKey(trimmed)
        : createPublicKey(trimmed)
      : kind === "private"
        ? createPrivateKey({ key: Buffer.from(trimmed, "base64"), format: "der", type: "pkcs8" })
        : createPublicKey({ key: Buffer.from(trimmed, "base64"), format: "der", type: "spki" });
    if (key.asymmetricKeyType !== "ed25519") throw new Error(`a ${key.asymmetricKeyType} key, not ed25519`);
    return key;
  } catch (e) {
    throw new KitError("INVALID_INPUT", `${variable} is not an Ed25519 ${kind} key: ${(e as Error).message}`, {
      hint: `set ${variable} to a PEM or base64 DER Ed25519 ${kind} key (openssl genpkey -algorithm ed25519)`,
    });
  }
}

export function signApproval(privateKeyText: string, variable: string, approved: Approved): string {
  return sign(null, approvalMessage(approved), keyFrom(privateKeyText, "private", variable)).toString("base64");
}

export function verifyApproval(
  publicKeyText: string,
  variable: string,
  approved: Approved,
  signature: string,
): boolean {
  const key = keyFrom(publicKeyText, "public", variable);
  try {
    return verify(null, approvalMessage(approved), key, Buffer.from(signature, "base64"));
  } catch {
    return false;
  }
}

/** The public half of a private key, base64 SPKI DER: what the tools need to check approvals. */
export function publicKeyOf(privateKeyText: string, variable: string): string {
  return createPublicKey(keyFrom(privateKeyText, "private", variable))
    .export({ format: "der", type: "spki" })
    .toString("base64");
}

const spkiOf = (publicKeyText: string, variable: string): string =>
  keyFrom(publicKeyText, "public", variable).export({ format: "der", type: "spki" }).toString("base64");

/** The approver the policy names for this private key; null when it names none. */
export function approverOfKey(policy: Policy, privateKeyText: string, variable: string): Approver | null {
  const mine = publicKeyOf(privateKeyText, variable);
  return (
    (policy.approvers ?? []).find(
      (a, i) => spkiOf(a.public_key, `approvers[${i}].public_key of policy ${policy.version}`) === mine,
    ) ?? null
  );
}
