/**
 * contract §8, what `apply` says of each item: one outcome of a closed set,
 * whether this run performed the side effect, and the error when it failed.
 */
import { KitError } from "../../output/errors.ts";
import type { PlanItem } from "../plan.ts";

export const ITEM_OUTCOMES = ["applied", "already-applied", "reconciled", "would-apply", "failed", "skipped", "in-progress", "unconfirmed"] as const;
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

export const reportOf = (it: PlanItem, outcome: ItemOutcome, executed: boolean, result: unknown = null, error: ItemReport["error"] = null): ItemReport => ({
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
