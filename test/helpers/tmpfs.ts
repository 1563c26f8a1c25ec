/**
 * A small file system of its own for disk-full tests: a tmpfs mounted on a
 * fresh folder (CI runs as root), filled to within a few bytes of full by
 * one filler file, which is removed to free the space again.
 */
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SmallDisk {
  readonly dir: string;
  /** Fills the disk to leave about `bytes` free (tmpfs counts whole pages). */
  fill(bytes: number): void;
  /** Removes the filler. */
  free(): void;
  /** Makes the disk `bytes` large, its files kept. */
  grow(bytes: number): void;
  unmount(): void;
}

/** Why a tmpfs cannot be mounted here, or null when it can (tried once per process). */
let why: string | null | undefined;

/** A tmpfs of `bytes` mounted on a new folder; null, with the reason printed, where this machine cannot mount one. */
export function smallDisk(bytes: number, mode = 0o755): SmallDisk | null {
  const dir = mkdtempSync(join(tmpdir(), "small-disk-"));
  const r =
    why === undefined || why === null
      ? Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${bytes},mode=${mode.toString(8)}`, "tmpfs", dir], {
          stderr: "pipe",
        })
      : null;
  if (r?.exitCode !== 0) {
    why ??= `cannot mount a tmpfs (${r?.stderr.toString().trim() || "not root"}): the disk-full tests are skipped`;
    console.log(why);
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  why = null;
  const filler = join(dir, ".filler");
  return {
    dir,
    fill(left) {
      rmSync(filler, { force: true });
      const st = statfsSync(dir);
      const avail = Number(st.bavail) * Number(st.bsize);
      writeFileSync(filler, new Uint8Array(Math.max(0, avail - left)));
    },
    free: () => rmSync(filler, { force: true }),
    grow(size) {
      const r = Bun.spawnSync(["mount", "-o", `remount,size=${size}`, dir], { stderr: "pipe" });
      if (r.exitCode !== 0) throw new Error(`cannot grow ${dir}: ${r.stderr.toString()}`);
    },
    unmount() {
      // A lazy unmount: a process still holding a file open does not keep the folder mounted.
      Bun.spawnSync(["umount", "-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
