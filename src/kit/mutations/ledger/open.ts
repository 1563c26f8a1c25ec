/**
 * Opens the ledger: the database the URL names (database/, one engine per
 * scheme), run by the ledger engine registered for that database's engine.
 * The engines are features (src/features/ledger) that register themselves
 * here; the kit holds only the interface apply needs (ledger.ts).
 */
import { type EngineName, type OpenedDatabase, openDatabase } from "../../database/index.ts";
import { KitError } from "../../output/index.ts";
import type { Ledger } from "./ledger.ts";

export const LEDGER_ENV = "AGENT_LEDGER_URL";

export interface LedgerOptions {
  /** The clock migrations stamp their rows with: the command's. */
  readonly now: () => number;
}

type LedgerEngine<E extends EngineName> = (
  db: Extract<OpenedDatabase, { engine: E }>,
  o: LedgerOptions,
) => Promise<Ledger>;

const engines = new Map<EngineName, LedgerEngine<EngineName>>();

/** How a ledger runs on an open database of `engine`: called once by each engine's module. */
export function registerLedgerEngine<E extends EngineName>(engine: E, open: LedgerEngine<E>): void {
  engines.set(engine, open as unknown as LedgerEngine<EngineName>);
}

/** `postgres://…` or `postgresql://…`; `sqlite:PATH` or a bare path; unset: `fallbackPath`. */
export async function openLedger(url: string | undefined, fallbackPath: string, o: LedgerOptions): Promise<Ledger> {
  const given = url?.trim();
  const where = given ? `the ledger at ${LEDGER_ENV}` : `the ledger file ${fallbackPath}`;
  let db: OpenedDatabase | null = null;
  try {
    db = openDatabase(given || fallbackPath);
    const open = engines.get(db.engine);
    if (!open)
      throw new KitError("INTERNAL", `no ledger engine is registered for ${db.engine}`, {
        hint: "import the kit's write surface (agent-cli-kit/writes): it registers the ledger engines",
      });
    return guarded(await open(db, o), where);
  } catch (e) {
    await db?.close().catch(() => {});
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
 * is an upstream failure the caller may retry, never an internal error: every
 * method of the engine's ledger is wrapped so; close never fails.
 */
function guarded(ledger: Ledger, where: string): Ledger {
  const wrapped: Record<string, unknown> = { engine: ledger.engine };
  for (const [name, f] of Object.entries(ledger) as [string, unknown][]) {
    if (typeof f !== "function") continue;
    wrapped[name] = async (...a: unknown[]) => {
      try {
        return await f(...a);
      } catch (e) {
        if (name === "close") return; // a connection already gone has nothing left to close
        throw ledgerFailure(e, where, `failed (${name === "settleAndClaim" ? "settle" : name})`);
      }
    };
  }
  return wrapped as unknown as Ledger;
}
