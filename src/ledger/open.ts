/** Picks the ledger engine: PostgreSQL for a postgres:// URL, else a SQLite file. */
import { KitError } from "../kit/errors.ts";
import type { Ledger } from "./ledger.ts";

export const LEDGER_ENV = "AGENT_LEDGER_URL";

/** `postgres://…` or `postgresql://…`; `sqlite:PATH` or a bare path; unset: `fallbackPath`. */
export async function openLedger(url: string | undefined, fallbackPath: string): Promise<Ledger> {
  const target = url?.trim() || fallbackPath;
  try {
    if (/^postgres(ql)?:\/\//i.test(target)) {
      const { openPostgres } = await import("./postgres.ts");
      return await openPostgres(target);
    }
    const { openSqlite } = await import("./sqlite.ts");
    return openSqlite(target.replace(/^sqlite:(\/\/)?/i, ""));
  } catch (e) {
    if (e instanceof KitError) throw e;
    throw new KitError("UPSTREAM_ERROR", `the ledger at ${LEDGER_ENV} cannot be opened: ${(e as Error).message}`, {
      hint: `check ${LEDGER_ENV} (a postgres:// URL or a SQLite file path) and that the server is reachable`,
    });
  }
}
