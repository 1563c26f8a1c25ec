/**
 * Hooks run under bun's own hook timeout (5 s), not bunfig's test timeout: a
 * hook that starts servers, compiles or removes folders gets this one, so a
 * busy machine slows it down without failing it.
 */
export const SLOW_HOOK = { timeout: 10 * 60_000 } as const;
