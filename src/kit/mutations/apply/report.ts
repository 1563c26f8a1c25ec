/**
 * contract §8, what `apply` says of each item: one outcome of a closed set,
 * whether this run performed the side effect, and the error when it failed.
 */
import { KitError } from "../../output/index.ts";
import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import type { ExecContext } from "../actions.ts";
import type { PlanItem } from "../plan.ts";

export const ITEM_OUTCOMES = [
  "applied",
  "already-applied",
  "reconciled",
  "would-apply",
  "failed",
  "skipped",
  "in-progress",
  "unconfirmed",
] as const;
export type ItemOutcome = (typeof ITEM_OUTCOMES)[number];
/** Outcomes that leave the item's change in place. */
export const IN_PLACE: ReadonlySet<ItemOutcome> = new Set(["applied", "already-applied", "reconciled"]);

export interface ItemReport {
  id: string;
  action: string;
  executed: boolean;
  outcome: ItemOutcome;
  result: unknown;
  error: { code: string; message: string } | null;
}

export const reportOf = (
  it: PlanItem,
  outcome: ItemOutcome,
  executed: boolean,
  result: unknown = null,
  error: ItemReport["error"] = null,
): ItemReport => ({
  id: it.id,
  action: it.action,
  executed,
  outcome,
  result,
  error,
});

/** A failure of the tool's own checks before anything was executed. */
export const failedBefore = (it: PlanItem, e: unknown): ItemReport => {
  if (!(e instanceof KitError)) throw e;
  return reportOf(it, "failed", false, null, { code: e.code, message: e.message });
};

/** The owner lost the item to a takeover: whoever holds it now reconciles what this run did. */
export const lostLease = (it: PlanItem, executed: boolean): ItemReport =>
  reportOf(it, executed ? "unconfirmed" : "in-progress", executed, null, {
    code: "IN_PROGRESS",
    message: `lost the ledger lease on item ${it.id}: another apply took it over${executed ? " after this one executed it; it reconciles the item" : ""}`,
  });

/** The name the OS's user database gives a uid (`/etc/passwd`), or null. */
export function passwdName(uid: number, passwd: string): string | null {
  for (const line of passwd.split("\n")) {
    const [name, , id] = line.split(":");
    if (name && id !== undefined && Number(id) === uid) return name;
  }
  return null;
}

/**
 * Who applies, for the action log, when AGENT_ACTOR does not say: the OS
 * user the process runs as, by its uid. Bun's os.userInfo() reads $USER and
 * says "unknown" without it (a service, a container, `env -i`), where the
 * uid still names someone.
 */
export const safeUser = (): string => {
  const uid = process.getuid?.();
  if (uid !== undefined)
    try {
      const name = passwdName(uid, readFileSync("/etc/passwd", "utf8"));
      if (name) return name;
    } catch {
      // No user database here: what the runtime says, below.
    }
  try {
    const name = userInfo().username;
    if (name && name !== "unknown") return name;
  } catch {
    // Neither: the uid is still someone.
  }
  return uid === undefined ? "unknown" : `uid-${uid}`;
};

/** An apply run without the command's identity (a library caller): a credential or a secret out is the caller's bug. */
export const NO_IDENTITY: Pick<ExecContext, "credential" | "secretOut"> = {
  credential: () => {
    throw new KitError("INTERNAL", "apply was run without its credentials");
  },
  secretOut: () => {
    throw new KitError("INTERNAL", "apply was run without a way to return a secret");
  },
};
