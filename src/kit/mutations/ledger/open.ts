/** Picks the ledger engine: PostgreSQL for a postgres:// URL, else a SQLite file. */
import { KitError } from "../../output/errors.ts";
import type { Ledger } from "./ledger.ts";

export const LEDGER_ENV = "AGENT_LEDGER_URL";

/** `postgres://…` or `postgresql://…`; `sqlite:PATH` or a bare path; unset: `fallbackPath`. */
export async function openLedger(url: string | undefined, fallbackPath: string): Promise<Ledger> {
  const given = url?.trim();
  const target = given || fallbackPath;
  const where = given ? `the ledger at ${LEDGER_ENV}` : `the ledger file ${fallbackPath}`;
  try {
    if (/^postgres(ql)?:\/\//i.test(target)) {
      const { openPostgres } = await import("./postgres.ts");
      return guarded(await openPostgres(target), where);
    }
    const { openSqlite } = await import("./sqlite.ts");
    return guarded(openSqlite(target.replace(/^sqlite:(\/\/)?/i, "")), where);
  } catch (e) {
    throw ledgerFailure(e, where, "cannot be opened");
  }
}

const failures = new WeakSet<object>();

/** Whether an error came from the ledger itself (as opposed to the tool's own code between ledger steps). */
export const isLedgerFailure = (e: unknown): e is KitError => typeof e === "object" && e !== null && failures.has(e);

function ledgerFailure(e: unknown, where: string, what: string): KitError {
  const err =
    e instanceof KitError
      ? e
      : new KitError("UPSTREAM_ERROR", `${where} ${what}: ${(e as Error).message}`, {
          hint: `check ${LEDGER_ENV} (a postgres:// URL or a SQLite file path) and that the server is reachable; re-running the same apply resumes where this one stopped`,
        });
  failures.add(err);
  return err;
}

/**
 * A database that goes away mid-apply (a server restart, a dropped connection)
 * is an upstream failure the caller may retry, never an internal error.
 */
function guarded(ledger: Ledger, where: string): Ledger {
  const wrap =
    <A extends unknown[], R>(name: string, f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        return await f(...a);
      } catch (e) {
        throw ledgerFailure(e, where, `failed (${name})`);
      }
    };
  return {
    engine: ledger.engine,
    claim: wrap("claim", ledger.claim),
    renew: wrap("renew", ledger.renew),
    settle: wrap("settle", ledger.settle),
    settleAndClaim: wrap("settle", ledger.settleAndClaim),
    release: wrap("release", ledger.release),
    actions: wrap("actions", ledger.actions),
    item: wrap("item", ledger.item),
    close: async () => {
      try {
        await ledger.close();
      } catch {
        // A connection already gone has nothing left to close.
      }
    },
  };
}
