/** What a caller may ask of the database it opens; an engine ignores what it has no use for. */
export interface DatabaseOptions {
  /** How long a writer waits for another before the engine gives up (SQLite's busy timeout); 10 s when absent. */
  readonly busyTimeoutMs?: number;
  /** More SQLite pragmas after the engine's own, e.g. `cache_size = -32768`. */
  readonly pragmas?: readonly string[];
  /** false: open only a file that exists (SQLite); true by default. */
  readonly create?: boolean;
}
