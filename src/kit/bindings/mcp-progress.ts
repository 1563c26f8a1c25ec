/**
 * MCP progress (spec: notifications/progress): a call whose request carries
 * a progressToken gets a notification for each progress report its command
 * makes (crawled pages, planned files, applied items: runtime/progress.ts,
 * carried over the child's stderr), one when it starts, and one every HEARTBEAT_MS while the
 * command says nothing (a stage busy in one long step), so a client that
 * resets its timeout on progress never times out on work that is moving.
 * `progress` counts the notifications (it must increase, and the stages'
 * counts restart); `message` says what moved, with the stage's counts.
 */
import type { ProgressReport } from "../base/index.ts";

export const HEARTBEAT_MS = 5000;

type Send = (n: {
  method: "notifications/progress";
  params: { progressToken: string | number; progress: number; message: string };
}) => Promise<void>;

export interface Notifier {
  readonly onProgress: ((p: ProgressReport) => void) | undefined;
  stop(): void;
}

export function progressNotifier(token: string | number | undefined, send: Send): Notifier {
  if (token === undefined) return { onProgress: undefined, stop: () => {} };
  const started = performance.now();
  let sent = 0;
  let last = started;
  const notify = (message: string) => {
    last = performance.now();
    sent++;
    // A client gone away is the transport's to report, not the call's.
    send({ method: "notifications/progress", params: { progressToken: token, progress: sent, message } }).catch(
      () => {},
    );
  };
  // The call is under way: a client counting its timeout from the request starts again from here.
  notify("started");
  const heartbeat = setInterval(() => {
    if (performance.now() - last < HEARTBEAT_MS) return;
    notify(`still working: ${Math.round((performance.now() - started) / 1000)} s`);
  }, HEARTBEAT_MS / 5);
  return { onProgress: (p) => notify(p.message), stop: () => clearInterval(heartbeat) };
}
