/**
 * One channel for long work (`ctx.progress`), drawn where someone is
 * watching: a line on stderr for a person at a terminal (never under
 * --json, never off a terminal), and a machine line on stderr for the door
 * that asked for one (PROGRESS_ENV: the MCP server turns each into a
 * progress notification). A stage that reports nothing for a while still
 * says it is working, with its elapsed time, so no watcher mistakes it for
 * a hang and no client's timeout runs out on it.
 */
import { PROGRESS_PREFIX } from "../base/index.ts";
import type { CommandContext } from "../declare/index.ts";
import type { Logger } from "../output/index.ts";

export { PROGRESS_ENV } from "../base/index.ts";

const TERMINAL_EVERY_MS = 500;
const MACHINE_EVERY_MS = 250;
/** Quiet this long, a stage says it is still working. */
export const QUIET_MS = 2000;

export interface ProgressSinks {
  /** A person at a terminal: stderr is one and --json is not given. */
  readonly terminal: Logger | null;
  /** A door's machine lines (already redacted by the caller's writer), or null. */
  readonly machine: ((line: string) => void) | null;
  readonly now: () => number;
}

export interface ProgressChannel {
  readonly report: CommandContext<unknown>["progress"];
  /** Stops the quiet-time ticker. */
  stop(): void;
}

const text = (label: string, done: number, total?: number) =>
  `${label}: ${done}${total === undefined ? "" : ` of ${total}`}`;

/** Throttled per sink; the last count of a stage (done = total) is always shown. */
export function progressChannel(s: ProgressSinks): ProgressChannel {
  if (!s.terminal && !s.machine) return { report: () => {}, stop: () => {} };
  const started = s.now();
  let lastTerminal = Number.NEGATIVE_INFINITY;
  let lastMachine = Number.NEGATIVE_INFINITY;
  let lastAny = started;
  const emit = (line: string, data: Record<string, unknown>, final: boolean) => {
    const now = s.now();
    lastAny = now;
    if (s.terminal && (final || now - lastTerminal >= TERMINAL_EVERY_MS)) {
      lastTerminal = now;
      s.terminal.info(line);
    }
    if (s.machine && (final || now - lastMachine >= MACHINE_EVERY_MS)) {
      lastMachine = now;
      s.machine(`${PROGRESS_PREFIX}${JSON.stringify({ message: line, ...data })}\n`);
    }
  };
  const report = (label: string, done: number, total?: number) =>
    emit(
      text(label, done, total),
      { label, done, ...(total === undefined ? {} : { total }) },
      total !== undefined && done >= total,
    );
  const ticker = setInterval(() => {
    if (s.now() - lastAny < QUIET_MS) return;
    const seconds = Math.round((s.now() - started) / 1000);
    emit(`still working: ${seconds} s`, { label: "working", done: seconds }, true);
  }, QUIET_MS / 2);
  ticker.unref?.();
  return { report, stop: () => clearInterval(ticker) };
}
