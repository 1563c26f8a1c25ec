/**
 * A step as a process group of its own: whatever it forks goes with it. At
 * its time limit, on cancellation, or when it exits leaving children behind,
 * the whole group is ended (TERM, then KILL after a grace period), and the
 * harness returns only once no member is left running.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { fs } from "./node-fs.ts";

export interface GroupRun {
  stdout: string;
  /** The exit code, or 128 + the signal's number when a signal ended it. */
  exit: number;
  /** The signal that ended the step's own process, if one did. */
  signal: string | null;
  /** Why the harness ended it: its time limit, or a cancellation; null when it ended by itself. */
  stopped: "time-limit" | "cancelled" | null;
}

export interface GroupOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly input?: string;
  readonly limitMs: number;
  readonly graceMs: number;
  readonly signal: AbortSignal;
}

/** Members of the group still running (a zombie is done: its parent reaps it). Linux reads /proc; elsewhere, whether any member exists. */
export function groupMembers(pgid: number): number {
  if (process.platform !== "linux") {
    try {
      process.kill(-pgid, 0);
      return 1;
    } catch {
      return 0;
    }
  }
  let n = 0;
  for (const pid of fs().readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so read after the last ')'.
      const stat = fs().readFileSync(`/proc/${pid}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z" && state !== "X") n++;
    } catch {}
  }
  return n;
}

const signalGroup = (pgid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pgid, signal);
  } catch {}
};

async function waitEmpty(pgid: number, ms: number): Promise<boolean> {
  const until = performance.now() + ms; // a wait: elapsed time, not the time of day
  for (;;) {
    if (groupMembers(pgid) === 0) return true;
    if (performance.now() >= until) return false;
    await Bun.sleep(25);
  }
}

/** TERM, then KILL whatever is left after the grace period; returns once nothing of the group runs (bounded). */
export async function endGroup(pgid: number, graceMs: number): Promise<void> {
  if (groupMembers(pgid) === 0) return;
  signalGroup(pgid, "SIGTERM");
  if (await waitEmpty(pgid, graceMs)) return;
  signalGroup(pgid, "SIGKILL");
  await waitEmpty(pgid, 5_000);
}

export async function runInGroup(argv: readonly string[], o: GroupOptions): Promise<GroupRun> {
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: o.cwd,
    env: o.env as NodeJS.ProcessEnv,
    detached: true,
    stdio: [o.input === undefined ? "ignore" : "pipe", "pipe", "inherit"],
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const spawned = new Promise<boolean>((resolve) => {
    child.once("spawn", () => resolve(true));
    child.once("error", () => resolve(false));
  });
  const chunks: Buffer[] = [];
  child.stdout!.on("data", (c: Buffer) => chunks.push(c));
  if (o.input !== undefined) child.stdin!.on("error", () => {}).end(o.input);
  if (!(await spawned)) return { stdout: "", exit: 127, signal: null, stopped: null };
  const pgid = child.pid!;
  let stopped: GroupRun["stopped"] = null;
  const stop = (why: "time-limit" | "cancelled") => {
    if (stopped) return;
    stopped = why;
    void endGroup(pgid, o.graceMs);
  };
  const timer = setTimeout(() => stop("time-limit"), o.limitMs);
  const onAbort = () => stop("cancelled");
  if (o.signal.aborted) onAbort();
  else o.signal.addEventListener("abort", onAbort, { once: true });
  const { code, signal } = await exited;
  clearTimeout(timer);
  o.signal.removeEventListener("abort", onAbort);
  // Whatever the step left behind goes too; then its stdout ends (unless something escaped the group: then it is cut).
  await endGroup(pgid, o.graceMs);
  let cut: Timer | undefined;
  await Promise.race([closed, new Promise<void>((resolve) => (cut = setTimeout(resolve, 5_000)))]);
  clearTimeout(cut); // a pending timer would keep the harness alive after its answer
  child.stdout!.destroy();
  return {
    stdout: Buffer.concat(chunks).toString("utf8"),
    exit: code ?? 128 + (constants.signals[signal as NodeJS.Signals] ?? 0),
    signal,
    stopped,
  };
}
