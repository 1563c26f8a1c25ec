/**
 * contract §8, the ledger's engines: SQLite and PostgreSQL, each registered
 * with the kit for the database engine it runs on, and loaded only when a
 * ledger of its engine is opened. This is the package's write surface
 * (`agent-cli-kit/writes`): the kit's plans and apply, with the engines in.
 * Adding an engine is its file and one line here.
 */
import { registerLedgerEngine } from "../../kit/mutations/index.ts";

registerLedgerEngine("sqlite", async (db, o) => (await import("./sqlite.ts")).sqliteLedger(db, o));
registerLedgerEngine("postgres", async (db, o) => (await import("./postgres.ts")).postgresLedger(db, o));

export * from "../../kit/writes.ts";
// What reads a ledger beside apply (the harness's history, a tool's own report): the log, the plan it belongs to.
export {
  type ActionLogRow,
  actionLog,
  isLedgerFailure,
  type Ledger,
  LEDGER_ENV,
  openLedger,
  readPlanFile,
  resolvePlanPath,
} from "../../kit/mutations/index.ts";
