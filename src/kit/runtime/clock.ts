/**
 * The process's clock, which the context's `now` reads: the wall clock. A
 * test build (KIT_FAILPOINTS: dist/test/<tool>, as for the failpoints in
 * mutations/failpoints.ts) also honours `clock-ahead:MS` in the same
 * variable, AGENT_KIT_FAILPOINT: its clock reads MS later (earlier when MS is
 * negative), so a test sees a plan expire or another process's lease run out
 * without waiting for it. In a release binary the switch is false: the
 * reading is dead code, dropped with the variable's name, and no environment
 * can move a binary's clock.
 */

/** Defined by the build (Bun.build `define`); undeclared when run from source. */
declare const KIT_FAILPOINTS: boolean | undefined;
const COMPILED_IN = typeof KIT_FAILPOINTS !== "undefined" && KIT_FAILPOINTS === true;

const wall = (): number => performance.timeOrigin + performance.now();

/** `clock` read `clock-ahead:MS` later, as AGENT_KIT_FAILPOINT asks; `clock` itself when it asks for nothing. */
export function clockAhead(env: Readonly<Record<string, string | undefined>>, clock = wall): () => number {
  const ms = Number(/(?:^|,)clock-ahead:(-?\d+)(?:,|$)/.exec(env.AGENT_KIT_FAILPOINT ?? "")?.[1] ?? 0);
  return ms ? () => clock() + ms : clock;
}

/** The clock of a process started with `env`: the wall clock, moved only in a test build. */
export function clockOf(env: Readonly<Record<string, string | undefined>>): () => number {
  return COMPILED_IN ? clockAhead(env) : wall;
}
