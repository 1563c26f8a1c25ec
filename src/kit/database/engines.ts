/**
 * The engine registry: each engine with the URLs it opens. The first that
 * accepts a URL opens it; SQLite, last, takes the rest (a bare file path).
 * Adding an engine is its file and one line here.
 */
import type { DatabaseOptions } from "./options.ts";
import { openPostgres } from "./postgres.ts";
import { openSqlite } from "./sqlite.ts";

export const ENGINES = [
  { accepts: (url: string) => /^postgres(ql)?:\/\//i.test(url), open: openPostgres },
  { accepts: (_url: string) => true, open: openSqlite },
] as const satisfies readonly { accepts(url: string): boolean; open(url: string, o: DatabaseOptions): unknown }[];

/** An open database of any registered engine; its `engine` tells which. */
export type OpenedDatabase = ReturnType<(typeof ENGINES)[number]["open"]>;
export type EngineName = OpenedDatabase["engine"];
