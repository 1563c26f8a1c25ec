/**
 * stdout that cannot take the answer (/dev/full: every write fails with ENOSPC, as on a full disk):
 * the exit code and one line on stderr say the answer was lost. Never exit 0 for a success nobody
 * received, never a stack trace; whether the answer was a document, a usage error or a command's result.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseEnv, binary, root } from "../helpers/bin.ts";

async function intoFullDisk(tool: string, args: string[]): Promise<{ exit: number; stderr: string }> {
  const full = openSync("/dev/full", "w");
  try {
    await using p = Bun.spawn([binary(tool), ...args], {
      env: baseEnv(),
      stdin: "ignore",
      stdout: full,
      stderr: "pipe",
    });
    const [stderr, exit] = await Promise.all([new Response(p.stderr).text(), p.exited]);
    return { exit, stderr };
  } finally {
    closeSync(full);
  }
}

describe("an answer stdout cannot take", () => {
  const runDir = join(mkdtempSync(join(tmpdir(), "stdout-full-")), "run");
  const cases: [string, string, string[]][] = [
    ["a command that succeeds", "seo", ["crawl", "--dir", join(root, "examples", "site"), "--run-dir", runDir]],
    ["a usage error", "seo", ["audit", "--severity", "urgent"]],
    ["the describe document", "brain", ["--describe"]],
    ["a document built in", "gate", ["--skill"]],
  ];
  for (const [what, tool, args] of cases)
    test(`${what}: exit 1 and one line on stderr naming the failed write`, async () => {
      const { exit, stderr } = await intoFullDisk(tool, args);
      expect({ exit, stderr }).toEqual({
        exit: 1,
        stderr: `${tool}: the answer could not be written to stdout (ENOSPC)\n`,
      });
    });
});
