/**
 * apply on SIGTERM or SIGINT: the loop stops claiming items, the item in
 * hand finishes or is released before it executes (loop.ts, held-item.ts),
 * and CANCELLED answers with every item's report, in the shape of a partial
 * apply's detail. The answer waits for that wind-down, within the 2 s a
 * stopping process has, and no longer: an execution that has not ended by
 * then is left held, and the next apply takes it over and reconciles it, as
 * after a second signal (which answers at once).
 */
import type { CommandContext } from "../../declare/index.ts";
import type { Plan } from "../plan.ts";
import { reportOf, type ItemReport } from "./report.ts";

/** How long a signal's answer waits for the item in hand. */
export const WIND_DOWN_MS = 1500;

export class Stopping {
  private readonly soFar: ItemReport[] = [];
  private readonly ended = Promise.withResolvers<void>();

  constructor(
    private readonly ctx: CommandContext<unknown>,
    private readonly plan: Plan,
  ) {
    ctx.windDown(this.ended.promise, WIND_DOWN_MS);
    // What the answer says if the wind-down is cut short: what is known so far.
    ctx.signal.addEventListener("abort", () => this.checkpoint(this.soFar, false), { once: true });
  }

  /** An item's report, as the loop gives it. */
  item(report: ItemReport): void {
    this.soFar.push(report);
    if (this.ctx.signal.aborted) this.checkpoint(this.soFar, false);
  }

  /** The loop is over (`reports`: every item's, when it ended by itself): the answer may go. */
  end(reports: readonly ItemReport[] | null): void {
    if (this.ctx.signal.aborted && reports) this.checkpoint(reports, true);
    this.ended.resolve();
  }

  /** The CANCELLED error's detail: every item, those past `reports` still running or not attempted. */
  private checkpoint(reports: readonly ItemReport[], whole: boolean): void {
    const why = `interrupted by ${String(this.ctx.signal.reason)}`;
    const items = [...reports];
    for (const it of this.plan.items.slice(reports.length))
      items.push(
        !whole && items.length === reports.length
          ? reportOf(it, "in-progress", false, null, {
              code: "CANCELLED",
              message: `${why} while in hand (not stored: the next apply reconciles it)`,
            })
          : reportOf(it, "skipped", false, null, { code: "CANCELLED", message: `not attempted: ${why}` }),
      );
    const executed = items.filter((r) => r.executed && (r.outcome === "applied" || r.outcome === "unconfirmed")).length;
    this.ctx.checkpoint({ status: "cancelled", plan: this.plan.checksum, executed, items });
  }
}
