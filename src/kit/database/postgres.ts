/** PostgreSQL through Bun's SQL client: a small pool, idle connections closed, a bounded wait to connect. */
import { SQL } from "bun";

export interface PostgresDatabase {
  readonly engine: "postgres";
  readonly sql: SQL;
  close(): Promise<void>;
}

export function openPostgres(url: string): PostgresDatabase {
  const sql = new SQL(url, { max: 2, idleTimeout: 5, connectionTimeout: 10 });
  return { engine: "postgres", sql, close: () => sql.close() };
}
