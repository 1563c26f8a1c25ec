/**
 * Atomic writes that clean up after themselves. A file is written aside
 * (`<name>.tmp-<pid>-<random>`) and renamed over its path; a write that fails
 * (a full disk, a read-only mount) removes its own temp file, so a failure
 * never eats the space its retry needs. A temp file a killed process left is
 * swept by the next write of the same file: its writer is gone (the pid in its
 * name is not running) or it is older than any write takes. Age is judged
 * against the writer's own temp file, by the file system's clock, the one
 * that stamped the others: not the process's.
 */
import { fs } from "../base/index.ts";

/** Past this age a temp file is a leftover whoever wrote it: no artifact takes an hour to write. */
const STALE_MS = 60 * 60_000;
const TEMP = /\.tmp-(?:(\d+)-)?[0-9a-f-]{8,}$/;

const errnoOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/** Whether process `pid` is running on this machine (a process of another user counts). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errnoOf(e) === "EPERM";
  }
}

/**
 * Removes the temp files of `path` that no running write owns; a folder that
 * cannot be listed is left as it is. Without `ownTemp` (the caller's own temp
 * file, already created: its mtime is the file system's now) only those whose
 * writer is gone are swept; with it, those past the age limit too.
 */
export function sweepTemps(path: string, ownTemp?: string): number {
  const now = ownTemp ? (fs().lstatSync(ownTemp, { throwIfNoEntry: false })?.mtimeMs ?? null) : null;
  const slash = path.lastIndexOf("/");
  const dir = path.slice(0, slash) || "/";
  const prefix = `${path.slice(slash + 1)}.tmp-`;
  let names: string[];
  try {
    names = fs().readdirSync(dir);
  } catch {
    return 0;
  }
  let swept = 0;
  for (const name of names) {
    const m = name.startsWith(prefix) ? TEMP.exec(name) : null;
    const full = `${dir}/${name}`;
    if (!m || full === ownTemp) continue;
    const st = fs().lstatSync(full, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    const pid = m[1] ? Number(m[1]) : null;
    const orphan = pid !== null ? pid !== process.pid && !running(pid) : false;
    if (!orphan && (now === null || now - st.mtimeMs < STALE_MS)) continue;
    try {
      fs().rmSync(full, { force: true });
      swept++;
    } catch {
      // Another sweeper got there first, or the folder is read-only: nothing to do.
    }
  }
  return swept;
}

/** Writes `data` to `path` atomically: a reader sees the old file or the new one, and a failure leaves no temp file behind. */
export function writeAtomic(path: string, data: string | Uint8Array, mode?: number): void {
  sweepTemps(path); // first the dead writers' temps: on a full disk, their space is what this write needs
  const tmp = `${path}.tmp-${process.pid}-${crypto.randomUUID()}`;
  try {
    fs().writeFileSync(tmp, data, mode === undefined ? undefined : { mode });
    sweepTemps(path, tmp);
    fs().renameSync(tmp, path);
  } catch (e) {
    try {
      fs().rmSync(tmp, { force: true });
    } catch {
      // The write's own error is the one to report.
    }
    throw e;
  }
}
