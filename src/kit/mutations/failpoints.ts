/**
 * Fault injection for the crash, race and lease tests, read from one
 * variable, comma-separated:
 *   after-execute:N        SIGKILL right after the Nth execution, before it is confirmed
 *   delay-execute:MS       every execution takes MS longer, as a slow API would (a signal cuts the wait short)
 *   delay-first-execute:MS only the first execution of this run takes MS longer
 *   delay-commit:MS        every execution waits MS at its fence, before its irreversible step: an
 *                          execution in progress when a signal comes (the wait is not cut short)
 *   delay-read:MS          `target list` (the gate's read-back) takes MS longer, as a slow disk would
 *   no-heartbeat           the lease is not renewed while an item executes
 *   kill-at-commit:N       SIGKILL when the Nth execution passes its fence, right before its
 *                          irreversible step (a temp file written, a commit object made)
 *   after-settle:N         SIGKILL right after the Nth settlement (and the next item's claim with it)
 *   clock-ahead:MS         the process's clock reads MS later (runtime/clock.ts): a plan expires, a lease runs out
 *
 * Only a test build honours them (scripts/build.ts: dist/test/<tool>, built
 * with KIT_FAILPOINTS defined true). In a release binary KIT_FAILPOINTS is
 * false, so the reading code below is dead and dropped: an environment
 * variable cannot kill an apply or stop its heartbeat. Run from source, they
 * are off too.
 */
export const FAILPOINT_ENV = "AGENT_KIT_FAILPOINT";

/** Defined by the build (Bun.build `define`); undeclared when run from source. */
declare const KIT_FAILPOINTS: boolean | undefined;
const COMPILED_IN = typeof KIT_FAILPOINTS !== "undefined" && KIT_FAILPOINTS === true;

type CrashPoint = "after-execute" | "kill-at-commit" | "after-settle";

/** What production code asks, by name, at each point a test may break it. */
export interface Failpoints {
  /** Dies here (SIGKILL) when the failpoint `name` names this, its `n`th passing. */
  crashAt(name: CrashPoint, n: number): void;
  /** Waits as long as a slow API would for this run's `execution`th execution, or until `signal` aborts. */
  delay(execution: number, signal: AbortSignal): Promise<void>;
  /** Waits at an execution's fence, signal or not. */
  atCommit(): Promise<void>;
  /** Waits as long as a slow disk would before a read-back, or until `signal` aborts. */
  delayRead(signal: AbortSignal): Promise<void>;
  /** Whether the lease is renewed while an item executes. */
  readonly heartbeat: boolean;
}

/** What a release build does at every failpoint: nothing. */
const NONE: Failpoints = {
  crashAt: () => {},
  delay: async () => {},
  atCommit: async () => {},
  delayRead: async () => {},
  heartbeat: true,
};

/** What a process passes on to the fleet tools it starts with a cut-down environment (the gate's read-back): the failpoints in a test build, nothing in a release build. */
export const failpointEnv = (): readonly string[] => (COMPILED_IN ? [FAILPOINT_ENV] : []);

export function failpointsOf(env: Readonly<Record<string, string | undefined>>): Failpoints {
  return COMPILED_IN ? readFailpoints(env) : NONE;
}

function readFailpoints(env: Readonly<Record<string, string | undefined>>): Failpoints {
  const set = new Map((env[FAILPOINT_ENV] ?? "").split(",").map((f) => f.split(":") as [string, string | undefined]));
  const num = (name: string) => Number(set.get(name) ?? 0) || 0;
  const every = num("delay-execute");
  const first = num("delay-first-execute");
  return {
    crashAt: (name, n) => {
      if (n === num(name)) crashNow();
    },
    delay: (n, signal) => pause(every + (n === 1 ? first : 0), signal),
    atCommit: () => pause(num("delay-commit"), new AbortController().signal),
    delayRead: (signal) => pause(num("delay-read"), signal),
    heartbeat: !set.has("no-heartbeat"),
  };
}

/** Waits `ms`, or less once `signal` aborts: a stopping process is not kept alive by a failpoint's timer. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** The crash a failpoint asks for: no cleanup, no envelope, exactly as a power cut or OOM kill would leave things. */
const crashNow = (): never => {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable");
};
