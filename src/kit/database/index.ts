/**
 * contract §8 and §11, where state is kept: one `openDatabase(url)` for the
 * ledger, the harness's event store and a tool's own index, the engine
 * chosen by the URL's scheme (engines.ts), each engine's set-up (SQLite's
 * file mode, WAL and pragmas; PostgreSQL's pool) written once.
 */
import { ENGINES, type OpenedDatabase } from "./engines.ts";
import type { DatabaseOptions } from "./options.ts";

export type { EngineName, OpenedDatabase } from "./engines.ts";
export type { DatabaseOptions } from "./options.ts";
export type { PostgresDatabase } from "./postgres.ts";
export { isBusy, type SqliteDatabase } from "./sqlite.ts";

/** `postgres://…` or `postgresql://…`; `sqlite:PATH`, `sqlite://PATH` or a bare file path. */
export function openDatabase(url: string, o: DatabaseOptions = {}): OpenedDatabase {
  const target = url.trim();
  return ENGINES.find((e) => e.accepts(target))!.open(target, o);
}
