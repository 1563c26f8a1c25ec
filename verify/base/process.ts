/**
 * The plumbing that keeps a tool from hanging verify: a stdin verify can see
 * read, output read with a bound, and every process a run started (its
 * process group, and any that left it for a session of its own) killed and
 * waited for.
 */
import {
  closeSync,
  constants,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

/** What the watched stdin holds: a line no tool should take as an answer. */
const MARKER = Buffer.from("verify: no one is here to answer\n");
/** Output kept per stream; the rest is read and dropped, so a chatty tool never blocks on a full pipe. */
const OUTPUT_CAP = 4 << 20;

export interface WatchedStdin {
  /** The read end, for the child. */
  readonly fd: number;
  /** Closes verify's copy of the child's end, once the child has it. */
  handedOver(): void;
  /** After the run: how many bytes the tool took. */
  consumed(reuse: boolean): number;
}

/**
 * FIFOs, one per run in flight, reused. verify holds each open for reading
 * and writing, so the tool's reads never see end-of-file (a wait is a hang,
 * as at a terminal) and what is left unread after the run is countable.
 */
export class StdinWatch {
  readonly #free: string[] = [];
  #made = 0;
  constructor(readonly dir: string) {}

  open(): WatchedStdin {
    const path = this.#free.pop() ?? this.#make();
    const keep = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
    writeSync(keep, MARKER);
    // A writer (keep) exists, so opening the read end does not block.
    const child = openSync(path, constants.O_RDONLY);
    return {
      fd: child,
      handedOver: () => closeSync(child),
      consumed: (reuse) => {
        const left = drain(keep);
        closeSync(keep);
        if (reuse) this.#free.push(path);
        else unlinkSync(path);
        return MARKER.length - left;
      },
    };
  }

  #make(): string {
    const path = join(this.dir, `stdin-${++this.#made}`);
    const p = Bun.spawnSync(["mkfifo", "-m", "600", path], { stdout: "ignore", stderr: "pipe" });
    if (p.exitCode !== 0 || !existsSync(path)) throw new Error(`mkfifo ${path}: ${p.stderr.toString().trim()}`);
    return path;
  }
}

/** Bytes left in a FIFO verify holds non-blocking. */
function drain(fd: number): number {
  const buf = Buffer.alloc(4096);
  let total = 0;
  for (;;) {
    try {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) return total;
      total += n;
    } catch {
      return total; // EAGAIN: empty
    }
  }
}

export interface BoundedRead {
  readonly text: Promise<string>;
  cancel(): void;
  /** What was read so far, when the stream never ends. */
  sofar(): string;
}

export function readBounded(stream: ReadableStream<Uint8Array>): BoundedRead {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  const sofar = () => Buffer.concat(chunks).toString("utf8");
  const text = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (kept < OUTPUT_CAP) {
          chunks.push(value);
          kept += value.length;
        }
      }
    } catch {
      // cancelled: what was read stands
    }
    return sofar();
  })();
  return { text, cancel: () => void reader.cancel().catch(() => {}), sofar };
}

export function killGroup(group: number): void {
  try {
    process.kill(-group, "SIGKILL");
  } catch {
    // no such group: nothing left
  }
}

/** Whether a process group has a member that is not a zombie (a zombie holds no pipe and runs nothing). */
export function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
  } catch {
    return false;
  }
  if (!existsSync("/proc/self/stat")) return true;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === group && state !== "Z" && state !== "X") return true;
    } catch {
      // gone while looking
    }
  }
  return false;
}

/** Waits (bounded) until a killed group has no live member, so verify never ends with a tool's process still running. */
export async function groupGone(group: number, boundMs = 3000): Promise<void> {
  for (let waited = 0; groupAlive(group) && waited < boundMs; waited += 10) await Bun.sleep(10);
}

/**
 * The variable every run's environment carries, its value the run's own: a
 * process keeps the environment it was started with (/proc/PID/environ), so
 * whatever a tool starts is found by it, in its group or in a session of its
 * own (setsid, a daemon's double fork). Only a process that clears its whole
 * environment escapes this, as it escapes any caller.
 */
export const RUN_MARK = "VERIFY_RUN_MARK";

/**
 * Whether a pid was handed out after the tool's: pids go upward and wrap
 * around to the bottom, and /proc/loadavg's last field is the newest one.
 * Without it, every pid is a candidate.
 */
function startedSince(toolPid: number): (pid: number) => boolean {
  let newest: number;
  try {
    newest = Number(readFileSync("/proc/loadavg", "utf8").trim().split(" ").pop());
  } catch {
    return () => true;
  }
  if (!Number.isInteger(newest)) return () => true;
  return newest >= toolPid ? (pid) => pid >= toolPid && pid <= newest : (pid) => pid >= toolPid || pid <= newest;
}

const PF_KTHREAD = 0x00200000;
/** How long a process caught inside an exec is read again for: the new program's environment is laid out in well under this. */
const EXEC_GRACE_MS = 250;

/**
 * What /proc says of a pid: it carries the mark; or it may be inside an
 * exec ("unsure": its environment reads back empty until the new program's
 * is laid out; a process started with none stays unsure for EXEC_GRACE_MS);
 * or neither (no mark, a zombie, a kernel thread, gone, not ours to read).
 */
function carries(pid: number, needle: Buffer): "marked" | "unsure" | null {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`);
    const seen = environ.includes(needle) ? "marked" : environ.length === 0 ? "unsure" : null;
    // Only a process that may be the run's has its state read: most pids since the tool's are not.
    if (seen === null) return null;
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" || fields[0] === "X" || Number(fields[6]) & PF_KTHREAD ? null : seen;
  } catch {
    return null; // gone while looking, or not ours to read
  }
}

/**
 * Live processes (not zombies) started by the run with this mark, whatever
 * their group or session. Only pids handed out since the tool's own are read
 * (what it starts comes later). One caught inside an exec (a child the tool
 * forked, then exec'd, as it exited) is read again until it shows its
 * environment or is gone: read once, it slipped through and was left running.
 */
export async function marked(mark: string, toolPid: number): Promise<number[]> {
  const needle = Buffer.from(`${RUN_MARK}=${mark}`);
  const out: number[] = [];
  let pids: number[];
  try {
    pids = readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .map(Number);
  } catch {
    return out; // no /proc: the process group is all verify can follow
  }
  const since = startedSince(toolPid);
  let unsure = pids.filter((pid) => since(pid) && pid !== process.pid);
  for (let waited = 0; unsure.length > 0; waited += 5) {
    const again: number[] = [];
    for (const pid of unsure) {
      const seen = carries(pid, needle);
      if (seen === "marked") out.push(pid);
      else if (seen === "unsure") again.push(pid);
    }
    unsure = again;
    if (unsure.length === 0 || waited >= EXEC_GRACE_MS) break;
    await Bun.sleep(5);
  }
  return out;
}

/** Kills the run's marked processes found (`found`) and any they start meanwhile, waiting (bounded) until none is left. */
export async function killMarked(mark: string, toolPid: number, found: number[], boundMs = 3000): Promise<void> {
  for (let left = found, waited = 0; left.length > 0 && waited < boundMs; waited += 10) {
    for (const pid of left)
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    await Bun.sleep(10);
    left = await marked(mark, toolPid);
  }
}

/**
 * After the tool exits: whether it left a process running (in its group, or
 * one carrying the run's mark outside it); every one of them killed and waited for.
 */
export async function reap(group: number, mark: string, timedOut: boolean): Promise<boolean> {
  const strays = await marked(mark, group);
  const left = !timedOut && (groupAlive(group) || strays.length > 0);
  killGroup(group);
  await Promise.all([groupGone(group), killMarked(mark, group, strays)]);
  return left;
}
