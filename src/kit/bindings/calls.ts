/**
 * What one MCP server has in flight. Agents call tools in parallel: reads
 * run side by side, at most a bounded number of children at once; writes
 * wait their turn in one queue, so two saves never race for one target.
 * On SIGTERM or SIGINT the server stops taking calls, tells its children to
 * stop (each answers CANCELLED, as the argv door does), answers what is in
 * flight, and exits 130 — within a grace period, after which the children
 * still running are killed, so none outlives the server.
 */
import type { Subprocess } from "bun";

export const MAX_CHILDREN_ENV = "AGENT_MCP_MAX_CHILDREN";
const DEFAULT_MAX_CHILDREN = 4;
/** How long in-flight calls get to answer after a signal, within the 2 s a client may wait. */
const GRACE_MS = 1500;

export class Calls {
  readonly #children = new Set<Subprocess>();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #waiting: (() => void)[] = [];
  readonly #max: number;
  #running = 0;
  #writes: Promise<unknown> = Promise.resolve();
  stopping = false;

  constructor(env: Readonly<Record<string, string | undefined>>) {
    const n = Number(env[MAX_CHILDREN_ENV]);
    this.#max = Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_CHILDREN;
  }

  /** One call, tracked until it is answered; a write runs after the writes before it. */
  call<T>(write: boolean, fn: () => Promise<T>): Promise<T> {
    let p: Promise<T>;
    if (write) {
      p = this.#writes.then(fn, fn);
      this.#writes = p.catch(() => {});
    } else p = fn();
    this.#inFlight.add(p);
    const done = () => this.#inFlight.delete(p);
    p.then(done, done);
    return p;
  }

  /** Runs `spawn`'s child within the bound on children at once, known until it exits; `stopped` answers instead once the server is stopping. */
  async child<T>(spawn: () => Subprocess, use: (child: Subprocess) => Promise<T>, stopped: () => T): Promise<T> {
    while (this.#running >= this.#max && !this.stopping)
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    if (this.stopping) return stopped();
    this.#running++;
    const child = spawn();
    this.#children.add(child);
    try {
      return await use(child);
    } finally {
      this.#children.delete(child);
      this.#running--;
      this.#waiting.shift()?.();
    }
  }

  /** The end on a signal: no new call, children told to stop, in-flight calls answered (or the grace spent), leftovers killed. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const wake of this.#waiting.splice(0)) wake();
    for (const c of this.#children) c.kill("SIGTERM");
    await Promise.race([Promise.allSettled([...this.#inFlight]), Bun.sleep(GRACE_MS)]);
    for (const c of this.#children) c.kill("SIGKILL");
  }
}
