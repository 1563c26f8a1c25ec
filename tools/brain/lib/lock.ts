/**
 * One writer at a time per repository, across processes: agents call brain
 * in parallel, and two commits made at once race for the branch (one loses
 * with "the branch moved") and see each other's half-synced work tree. The
 * lock is SQLite's own write lock on a file in the git directory: the
 * kernel drops it when its process dies, so a killed apply never leaves a
 * stale lock behind. Waiting is bounded; past the bound it is IN_PROGRESS.
 */
import { Database } from "bun:sqlite";
import { KitError } from "agent-cli-kit";
import type { Repo } from "./repo.ts";

export const LOCK_WAIT_ENV = "AGENT_BRAIN_LOCK_WAIT_MS";
const DEFAULT_WAIT_MS = 120_000;
const LOCK_FILE = "brain-write.lock";

const isBusy = (e: unknown): boolean =>
  /SQLITE_BUSY|database is locked/i.test(`${(e as { code?: string }).code ?? ""} ${(e as Error).message}`);

function waitOf(env: Readonly<Record<string, string | undefined>>): number {
  const n = Number(env[LOCK_WAIT_ENV]);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_WAIT_MS;
}

/** Runs `fn` holding the repository's write lock, waiting for it up to the bound (AGENT_BRAIN_LOCK_WAIT_MS). */
export async function withWriteLock<T>(
  repo: Repo,
  env: Readonly<Record<string, string | undefined>>,
  fn: () => T | Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const db = new Database(`${repo.gitDir}/${LOCK_FILE}`, { create: true });
  try {
    const deadline = performance.now() + waitOf(env); // a wait: elapsed time, not the time of day
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      try {
        db.exec("BEGIN IMMEDIATE");
        break;
      } catch (e) {
        if (!isBusy(e)) throw e;
        if (performance.now() >= deadline)
          throw new KitError(
            "IN_PROGRESS",
            `another brain process is writing to ${repo.root} and did not finish within ${waitOf(env)} ms`,
            {
              hint: "re-run when it has finished: nothing was changed",
            },
          );
        signal?.throwIfAborted();
        // Jittered, so waiters do not wake in step.
        await Bun.sleep(pause * (0.5 + Math.random()));
      }
    }
    try {
      return await fn();
    } finally {
      db.exec("ROLLBACK");
    }
  } finally {
    db.close();
  }
}
