/**
 * What load does not move, per process: instructions (valgrind's callgrind,
 * user space only), files opened and system calls (strace). Each is absent
 * (null) where its tool is not installed.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Variables set for the traced process, beside the benchmark's own. */
type Env = Readonly<Record<string, string>>;

const has = (tool: string): boolean => Bun.which(tool) !== null;

export interface Traced {
  /** Instructions executed in user space, in millions. */
  readonly instructionsM: number | null;
  /** Files opened successfully (openat/open), and the system calls made. */
  readonly opened: number | null;
  readonly syscalls: number | null;
}

function instructions(argv: readonly string[], cwd: string, env: Env): number | null {
  if (!has("valgrind")) return null;
  const p = Bun.spawnSync(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", ...argv], {
    cwd,
    env: { ...process.env, ...env },
    stdout: "ignore",
    stderr: "pipe",
    stdin: "ignore",
  });
  const m = /Collected : (\d+)/.exec(p.stderr.toString());
  return m ? Number(m[1]) / 1e6 : null;
}

function straced(argv: readonly string[], cwd: string, env: Env): { opened: number; syscalls: number } | null {
  if (!has("strace")) return null;
  const log = join(mkdtempSync(join(tmpdir(), "bench-strace-")), "log");
  const run = (flags: string[]) => {
    Bun.spawnSync(["strace", "-f", ...flags, "-o", log, "--", ...argv], {
      cwd,
      env: { ...process.env, ...env },
      stdout: "ignore",
      stderr: "ignore",
      stdin: "ignore",
    });
    return readFileSync(log, "utf8");
  };
  const opens = run(["-e", "trace=openat,open"])
    .split("\n")
    .filter((l) => /open(at)?\(/.test(l) && !/= -1 /.test(l));
  // The summary's last row: "100.00  seconds  usecs/call  calls  [errors]  total".
  const total = run(["-c"]).trim().split("\n").at(-1)!.trim().split(/\s+/);
  rmSync(dirname(log), { recursive: true, force: true });
  return { opened: opens.length, syscalls: Number(total[3]) };
}

export function traced(argv: readonly string[], cwd: string, withInstructions: boolean, env: Env = {}): Traced {
  const s = straced(argv, cwd, env);
  return {
    instructionsM: withInstructions ? instructions(argv, cwd, env) : null,
    opened: s?.opened ?? null,
    syscalls: s?.syscalls ?? null,
  };
}
