/**
 * What one MCP server has in flight. Agents call tools in parallel: reads
 * run side by side, at most a bounded number of children at once; writes
 * wait their turn in one queue, so two saves never race for one target.
 * On SIGTERM or SIGINT the server stops taking calls, tells its children to
 * stop (each answers CANCELLED, as the argv door does), answers what is in
 * flight, and exits 130 — within a grace period, after which what is still
 * running is killed. Each child leads a process group of its own
 * (mcp-runner.ts spawns it detached): the child stops what it started, in its
 * own order, and whatever of its group is left once the calls are answered
 * (the gate's read-back, still ending after the gate answered) is killed, so
 * nothing outlives the server.
 */
import type { Subprocess } from "bun";
import { groupMembers } from "../base/index.ts";

export const MAX_CHILDREN_ENV = "AGENT_MCP_MAX_CHILDREN";
const DEFAULT_MAX_CHILDREN = 4;
/** How long in-flight calls get to answer after a signal, within the 2 s a client may wait. */
const GRACE_MS = 1500;
/** How long the killed groups get to be gone (a zombie is gone) before the server exits. */
const REAP_MS = 300;

const signalGroup = (pgid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pgid, signal);
  } catch {
    // No member is left.
  }
};

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

  /** The end on a signal: no new call, children told to stop, in-flight calls answered (or the grace spent), what is left of their groups killed. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const wake of this.#waiting.splice(0)) wake();
    const groups = [...this.#children].map((c) => c.pid);
    for (const c of this.#children) c.kill("SIGTERM");
    await Promise.race([Promise.allSettled([...this.#inFlight]), Bun.sleep(GRACE_MS)]);
    for (const g of groups) signalGroup(g, "SIGKILL");
    // A wait: elapsed time, not the time of day.
    for (const end = performance.now() + REAP_MS; groups.some((g) => groupMembers(g) > 0) && performance.now() < end; )
      await Bun.sleep(10);
  }
}
