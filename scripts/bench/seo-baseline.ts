/**
 * seo as it was at a git commit, built from that commit's own sources with
 * its own build script: the benchmark's "old" beside the working tree's
 * "new". By default the commit before pages streamed through the run dir
 * (the parent of the commit that added tools/seo/lib/page-store.ts). The
 * build is kept in the temp folder under the commit's hash and reused.
 */
import { existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

const git = (...args: string[]): string => {
  const p = Bun.spawnSync(["git", "-C", root, ...args], { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr.toString().trim()}`);
  return p.stdout.toString().trim();
};

/** The commit before the streaming work: the parent of the commit that added page-store.ts. */
function beforeStreaming(): string {
  const added = git("log", "--diff-filter=A", "--format=%H", "--", "tools/seo/lib/page-store.ts").split("\n").at(-1);
  if (!added) throw new Error("no commit added tools/seo/lib/page-store.ts: give --baseline REF");
  return git("rev-parse", `${added}^`);
}

export interface Baseline {
  commit: string;
  subject: string;
  binary: string;
}

/** dist/seo of `ref` (default: the commit before the streaming work), built once per commit. */
export function baselineSeo(ref: string | null): Baseline {
  const commit = ref === null ? beforeStreaming() : git("rev-parse", `${ref}^{commit}`);
  const subject = git("log", "-1", "--format=%s", commit).slice(0, 100);
  const dir = join(tmpdir(), `seo-bench-baseline-${commit.slice(0, 12)}`);
  const binary = join(dir, "dist", "seo");
  if (existsSync(binary)) return { commit, subject, binary };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const unpacked = Bun.spawnSync(["sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, commit, dir], {
    stderr: "pipe",
  });
  if (unpacked.exitCode !== 0) throw new Error(`git archive ${commit}: ${unpacked.stderr.toString().trim()}`);
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  const built = Bun.spawnSync([process.execPath, join(dir, "scripts", "build.ts"), "seo"], {
    cwd: dir,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (built.exitCode !== 0 || !existsSync(binary)) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`building seo at ${commit} failed: ${built.stderr.toString().slice(-400)}`);
  }
  return { commit, subject, binary };
}
