/**
 * A bounded pool: runs in parallel, never more than the machine can take.
 * A background run (a fuzzed invocation) takes a free slot only when no
 * probe is waiting for one, so the probes' own chains (a cursor walked page
 * by page, a list grown round by round) are never queued behind hundreds of
 * fuzzed runs, and those runs fill the gaps the chains leave.
 */
export class Pool {
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #background: (() => void)[] = [];
  constructor(readonly size: number) {}

  async use<T>(fn: () => Promise<T>, background = false): Promise<T> {
    if (this.#active >= this.size)
      await new Promise<void>((r) => (background ? this.#background : this.#waiting).push(r));
    this.#active++;
    try {
      return await fn();
    } finally {
      this.#active--;
      (this.#waiting.shift() ?? this.#background.shift())?.();
    }
  }
}

/**
 * Runs in flight at once unless --concurrency says: VERIFY_CONCURRENCY, else
 * twice the cores (a run spends part of its life waiting on its output and
 * its process group); 0 when VERIFY_CONCURRENCY is not an integer >= 1.
 */
export function defaultConcurrency(cores: number, env: string | undefined): number {
  if (env === undefined || env.trim() === "") return cores * 2;
  const n = Number(env);
  return /^\d+$/.test(env.trim()) && Number.isSafeInteger(n) && n >= 1 ? n : 0;
}
