/**
 * node:fs, loaded on first use: its import alone costs milliseconds of a
 * start-up, and most invocations (an argv error, a describe, a read of the
 * run dir, which maps its files) never touch it.
 */
type NodeFs = typeof import("node:fs");
let loaded: NodeFs | undefined;
export const fs = (): NodeFs => (loaded ??= require("node:fs") as NodeFs);
