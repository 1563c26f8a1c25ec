/**
 * An item's ledger lease while this run holds it: renewed by a heartbeat
 * while the item executes; `fence()` proves it is still held right before
 * the one irreversible step. A lease confirmed less than half its length ago
 * cannot have been taken over (a takeover needs it expired, and our process
 * is alive), so the fence asks the ledger only past that point: a quick item
 * costs no extra round trip. (This trusts the appliers' clocks to agree
 * within half a lease.)
 */
import { KitError } from "../../output/index.ts";
import type { Fence, Ledger } from "../ledger/ledger.ts";

export const LEASE_ENV = "AGENT_LEDGER_LEASE_MS";
const DEFAULT_LEASE_MS = 60_000;
const MIN_LEASE_MS = 300;

export function leaseOf(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[LEASE_ENV];
  if (raw === undefined || raw === "") return DEFAULT_LEASE_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < MIN_LEASE_MS)
    throw new KitError(
      "INVALID_INPUT",
      `${LEASE_ENV} must be a whole number of milliseconds, at least ${MIN_LEASE_MS} (got: '${raw}')`,
      { got: raw, hint: `unset ${LEASE_ENV} for the default of ${DEFAULT_LEASE_MS} ms` },
    );
  return n;
}

export class Lease {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setInterval> | null;
  private readonly onParentAbort: () => void;
  private lost = false;
  private confirmedAt: number;

  constructor(
    private readonly ledger: Ledger,
    private readonly f: Fence,
    private readonly ms: number,
    private readonly now: () => number,
    private readonly parent: AbortSignal,
    heartbeat: boolean,
    /** When the claim that took the lease was made: it runs from then. */
    claimedAt: number,
  ) {
    this.confirmedAt = claimedAt;
    this.onParentAbort = () => this.controller.abort(parent.reason);
    parent.addEventListener("abort", this.onParentAbort, { once: true });
    this.timer = heartbeat
      ? setInterval(() => void this.renew().catch(() => {}), Math.max(100, Math.floor(ms / 3)))
      : null;
  }

  /** Aborted when the run is cancelled or the lease is lost. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private async renew(): Promise<boolean> {
    if (this.lost) return false;
    const now = this.now();
    if (await this.ledger.renew(this.f, now + this.ms, now)) {
      this.confirmedAt = now;
      return true;
    }
    this.lost = true;
    this.controller.abort(new KitError("IN_PROGRESS", "the item's ledger lease was taken over"));
    return false;
  }

  /** Whether this run still holds the item (asking the ledger, and renewing the lease if so). */
  async holds(): Promise<boolean> {
    return this.renew();
  }

  async fence(): Promise<void> {
    if (!this.lost && this.now() - this.confirmedAt < this.ms / 2) return;
    if (!(await this.renew()))
      throw new KitError(
        "IN_PROGRESS",
        "this apply no longer holds the item: its lease was taken over by another apply",
        { hint: "re-run the same apply; it reconciles the item" },
      );
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.parent.removeEventListener("abort", this.onParentAbort);
  }
}
