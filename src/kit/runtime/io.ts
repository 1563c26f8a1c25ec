/**
 * The process, as the kit sees it. `processIO()` is the only place that
 * reads `process`: the runtime takes a KitIO, so tests can run a tool
 * in-process with their own argv, environment and streams.
 */
import { fs } from "../base/index.ts";
import { clockOf } from "./clock.ts";
import { selfArgv } from "./multicall.ts";
import { ttyBinding } from "./terminal.ts";

export type Signal = "SIGINT" | "SIGTERM";

export interface KitIO {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly tmpdir: string;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  readonly columns: number;
  writeStdout(text: string): Promise<void>;
  writeStderr(text: string): void;
  readStdin(): Promise<string>;
  now(): number;
  onSignal(handler: (signal: Signal) => void): void;
  /**
   * Runs this same invocation again in a child process whose environment
   * lacks these variables, and returns its exit code: the only way to take a
   * variable from every process the command may start (Bun.spawn's default
   * environment is the one the process started with, whatever is deleted later).
   */
  respawnWithout(names: readonly string[]): Promise<number>;
  terminal(): { input: NodeJS.ReadableStream; output: NodeJS.WritableStream };
  exit(code: number): never;
}

/** stderr may be a non-blocking pipe: a full pipe is waited out, not dropped. */
function writeAll(fd: number, text: string): void {
  let buf = Buffer.from(text);
  while (buf.length > 0) {
    try {
      buf = buf.subarray(fs().writeSync(fd, buf));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") return;
      Bun.sleepSync(1);
    }
  }
}

/** A terminal, by the binding; where it is missing, a character device that is not /dev/null. */
function isTerminal(fd: number): boolean {
  const known = ttyBinding(fd);
  if (known !== null) return known;
  try {
    const st = fs().fstatSync(fd);
    return st.isCharacterDevice() && st.rdev !== fs().statSync("/dev/null").rdev;
  } catch {
    return false;
  }
}

/** os.tmpdir() on POSIX, without importing node:os (nor compiling a regular expression at start-up). */
function tmpdirOf(env: NodeJS.ProcessEnv): string {
  let dir = env.TMPDIR || env.TMP || env.TEMP || "/tmp";
  while (dir.length > 1 && dir.endsWith("/")) dir = dir.slice(0, -1);
  return dir;
}

export function processIO(): KitIO {
  return {
    argv: process.argv.slice(2),
    env: process.env,
    cwd: process.cwd(),
    tmpdir: tmpdirOf(process.env),
    stdoutIsTTY: isTerminal(1),
    stderrIsTTY: isTerminal(2),
    stdinIsTTY: isTerminal(0),
    // The terminal's own width first (only asked for on a terminal, where text is drawn); COLUMNS else.
    get columns() {
      return (process.stdout as { columns?: number }).columns || Number(process.env.COLUMNS) || 100;
    },
    async writeStdout(text) {
      await Bun.write(Bun.stdout, text);
    },
    writeStderr: (text) => writeAll(2, text),
    readStdin: () => Bun.stdin.text(),
    now: clockOf(process.env),
    onSignal(handler) {
      process.on("SIGINT", () => handler("SIGINT"));
      process.on("SIGTERM", () => handler("SIGTERM"));
    },
    async respawnWithout(names) {
      const env = { ...process.env };
      for (const n of names) delete env[n];
      // A compiled binary's argv[1] is its embedded entry point, not a script to pass again.
      const args = process.argv[1]?.startsWith("/$bunfs/") ? process.argv.slice(2) : process.argv.slice(1);
      const child = Bun.spawn([...selfArgv(), ...args], {
        env,
        stdin: "inherit",
        stdout: "inherit",
        stderr: "inherit",
      });
      const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
      process.on("SIGINT", forward("SIGINT"));
      process.on("SIGTERM", forward("SIGTERM"));
      const code = await child.exited;
      return child.signalCode ? 130 : code;
    },
    terminal: () => ({ input: process.stdin, output: process.stderr }),
    exit: (code) => process.exit(code),
  };
}
