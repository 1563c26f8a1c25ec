/**
 * contract §8 `apply`: every item of an approved plan, in plan order, each
 * through the ledger protocol (protocol.ts). Items touching one target run
 * in order, each expecting the version the previous one leaves, so the
 * plan's own confirmed items never make it stale; an item that did not
 * apply blocks the later items on its targets. An applied item's
 * settlement also claims the item after it (one commit per item, not two).
 * A ledger that fails stops the run: the rest are reported as not attempted;
 * so does a signal, once the item in hand is settled or released.
 */
import { REDISPATCH_CODES, type KitError } from "../../output/errors.ts";
import { isLedgerFailure } from "../ledger/open.ts";
import type { PlanItem } from "../plan.ts";
import { Applier, type ApplyRun } from "./protocol.ts";
import { failedBefore, IN_PLACE, reportOf, type ItemReport } from "./report.ts";

export type { ApplyRun } from "./protocol.ts";

/** Every item's report, in plan order; `stoppedBy` is set when the ledger failed and the rest were not attempted. */
export async function applyItems(run: ApplyRun): Promise<{ reports: ItemReport[]; stoppedBy: KitError | null }> {
  const applier = new Applier(run);
  const blocked = new Map<string, string>(); // target → the item whose failure blocks later items on it
  const dryChecked = new Set<string>();
  const reports: ItemReport[] = [];
  const unblocked = (it: PlanItem | undefined): PlanItem | null =>
    it && !it.target_resource_ids.some((t) => blocked.has(t)) ? it : null;
  try {
    for (const [index, it] of run.plan.items.entries()) {
      // A signal: no item is claimed from here on; the rest are reported as not attempted.
      if (run.signal.aborted) return { reports: [...reports, ...notAttempted(run, index)], stoppedBy: null };
      const blocker = it.target_resource_ids.map((t) => blocked.get(t)).find(Boolean);
      let report: ItemReport;
      const moved = rootMoved(run);
      if (moved) report = reportOf(it, "failed", false, null, moved);
      else if (blocker)
        report = reportOf(it, "skipped", false, null, {
          code: "PRECONDITION_FAILED",
          message: `not attempted: the earlier item ${blocker} on the same target did not apply`,
        });
      else if (!run.ledger) report = await applier.dryRun(it, dryChecked).catch((e) => failedBefore(it, e));
      else {
        const progress = { executed: false };
        try {
          report = await applier.apply(it, run.ledger, progress, unblocked(run.plan.items[index + 1]));
        } catch (e) {
          // Stopped while claiming (--wait) or before the item executed: neither it nor the rest was attempted.
          if (run.signal.aborted && !progress.executed)
            return { reports: [...reports, ...notAttempted(run, index)], stoppedBy: null };
          if (!isLedgerFailure(e)) throw e;
          reports.push(...ledgerStopped(it, progress.executed, e, run.plan.items.slice(index + 1)));
          return { reports, stoppedBy: e };
        }
      }
      reports.push(report);
      run.onItem?.(reports.length, run.plan.items.length, report);
      // A swapped root, or a credential that is dead: no later item can do better in this run.
      if (report.error && (report.error.code === "ROOT_CHANGED" || REDISPATCH_CODES.has(report.error.code))) {
        const why = { code: report.error.code, message: `not attempted: ${report.error.message}` };
        reports.push(...run.plan.items.slice(index + 1).map((r) => reportOf(r, "skipped", false, null, why)));
        return { reports, stoppedBy: null };
      }
      if (!IN_PLACE.has(report.outcome) && report.outcome !== "would-apply")
        for (const t of it.target_resource_ids) if (!blocked.has(t)) blocked.set(t, it.id);
    }
    return { reports, stoppedBy: null };
  } finally {
    // Stopped before reaching the item claimed with the last settlement: nothing of it ran.
    if (run.ledger) await applier.dropAhead(run.ledger);
  }
}

/** Why no item may run now that the plan's root resolves elsewhere than approved; null while it does not. */
function rootMoved(run: ApplyRun): ItemReport["error"] {
  try {
    run.root?.check();
    return null;
  } catch (e) {
    if ((e as KitError).code !== "ROOT_CHANGED") throw e;
    return { code: "ROOT_CHANGED", message: (e as KitError).message };
  }
}

/** The items from `index` on, which a signal stopped the run before. */
const notAttempted = (run: ApplyRun, index: number): ItemReport[] =>
  run.plan.items.slice(index).map((it) =>
    reportOf(it, "skipped", false, null, {
      code: "CANCELLED",
      message: `not attempted: interrupted by ${String(run.signal.reason)}`,
    }),
  );

/** The ledger failed during `it`: what is known of it, and that the rest were not attempted. */
function ledgerStopped(it: PlanItem, executed: boolean, e: KitError, rest: readonly PlanItem[]): ItemReport[] {
  return [
    executed
      ? reportOf(it, "unconfirmed", true, null, {
          code: e.code,
          message: `executed, but not confirmed: ${e.message}; the next apply reconciles it`,
        })
      : reportOf(it, "failed", false, null, { code: e.code, message: e.message }),
    ...rest.map((r) =>
      reportOf(r, "skipped", false, null, { code: e.code, message: "not attempted: the ledger failed" }),
    ),
  ];
}
