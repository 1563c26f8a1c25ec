/**
 * The suite's test files, and which of them start a process (a binary, git,
 * a server): a file does when it, or a test helper it imports (followed
 * transitively), spawns one. The rest run in-process: the fast tier.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const SPAWNS = /Bun\.spawn|spawnSync|child_process|\bBun\.\$|\$`|execFile|new Worker\(/;
const IMPORT = /(?:import|from)\s*\(?\s*["'](\.[^"']+)["']/g;

export function startsProcess(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file) || !existsSync(file)) return false;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  if (SPAWNS.test(text)) return true;
  for (const m of text.matchAll(IMPORT)) {
    const target = resolve(dirname(file), m[1]!);
    // Only the test helpers are followed: the code under test starting a process is what a test of it is about.
    if (relative(ROOT, target).startsWith("test/") && startsProcess(target, seen)) return true;
  }
  return false;
}

/** Every test file bun would run (relative to the repository), in a stable order. */
export function testFiles(): string[] {
  const found = new Bun.Glob("{src,tools,verify,test,scripts}/**/*.test.ts").scanSync({ cwd: ROOT });
  return [...found].filter((f) => !f.includes("/fixtures/") && !f.includes("node_modules")).sort();
}

/** The test files that run in-process only. */
export const inProcessFiles = (): string[] => testFiles().filter((f) => !startsProcess(resolve(ROOT, f)));
