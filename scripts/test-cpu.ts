/**
 * What each test file costs in CPU (its worker and the processes it waited
 * for), from the log `AGENT_KIT_CPU_LOG=FILE bun test …` writes
 * (test/helpers/cpu-log.ts): the costliest first, with the total.
 *
 *   AGENT_KIT_CPU_LOG=/tmp/cpu.jsonl npm test; bun scripts/test-cpu.ts /tmp/cpu.jsonl [TOP]
 */
import { readFileSync } from "node:fs";

interface Line {
  file: string;
  wall_ms: number;
  user_ms: number;
  sys_ms: number;
  children_user_ms: number;
  children_sys_ms: number;
}

const [path, top = "40"] = process.argv.slice(2);
if (!path) {
  console.error("usage: bun scripts/test-cpu.ts LOG [TOP]");
  process.exit(2);
}
const lines = readFileSync(path, "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as Line);
const cpu = (l: Line) => l.user_ms + l.sys_ms + l.children_user_ms + l.children_sys_ms;
const total = lines.reduce((n, l) => n + cpu(l), 0);
const s = (ms: number) => (ms / 1000).toFixed(1).padStart(7);
console.log(`${"cpu s".padStart(7)} ${"self".padStart(7)} ${"procs".padStart(7)} ${"wall s".padStart(7)}  file`);
for (const l of [...lines].sort((a, b) => cpu(b) - cpu(a)).slice(0, Number(top)))
  console.log(
    `${s(cpu(l))} ${s(l.user_ms + l.sys_ms)} ${s(l.children_user_ms + l.children_sys_ms)} ${s(l.wall_ms)}  ${l.file}`,
  );
console.log(`${s(total)} in all, ${lines.length} files`);
