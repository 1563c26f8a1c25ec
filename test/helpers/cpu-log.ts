/**
 * Preloaded before every test file (bunfig.toml): with AGENT_KIT_CPU_LOG set
 * to a file, each test file appends one line there when it ends, the CPU its
 * worker and every process it started and waited for spent on it (from
 * /proc/self/stat; under --parallel a worker runs one file at a time). This
 * is how the suite's cost is counted per file: wall time on a shared machine
 * says little, CPU time is what every run pays. `bun scripts/test-cpu.ts`
 * reads it.
 */
import { afterAll } from "bun:test";
import { appendFileSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { SLOW_HOOK } from "./hooks.ts";

const log = process.env.AGENT_KIT_CPU_LOG;

/** utime, stime, cutime, cstime in clock ticks (100 a second on Linux). */
function ticks(): number[] {
  const stat = readFileSync("/proc/self/stat", "utf8");
  return stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .slice(11, 15)
    .map(Number);
}

if (log) {
  const start = ticks();
  const started = performance.now();
  afterAll(() => {
    const [user, sys, childUser, childSys] = ticks().map((t, i) => (t - start[i]!) * 10);
    const file = relative(`${import.meta.dir}/../..`, Bun.main);
    const wall = Math.round(performance.now() - started);
    const line = {
      file,
      wall_ms: wall,
      user_ms: user,
      sys_ms: sys,
      children_user_ms: childUser,
      children_sys_ms: childSys,
    };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  }, SLOW_HOOK);
}
