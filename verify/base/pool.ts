/** A bounded pool: probes run in parallel, but never more than the machine can take. */
export class Pool {
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  constructor(readonly size: number) {}

  async use<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#active >= this.size) await new Promise<void>((r) => this.#waiting.push(r));
    this.#active++;
    try {
      return await fn();
    } finally {
      this.#active--;
      this.#waiting.shift()?.();
    }
  }
}
