/**
 * verify's terminal probe (noninteractive.tty) opens its pseudo-terminal with
 * the python3 on PATH: where there is none it is skipped, saying so, never
 * failed. verify itself is the tool probed; the corpus's tty-prompt (in
 * nonconforming.test.ts) is the prompt it catches.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, root, run } from "../helpers/bin.ts";

type Check = { id: string; status: string; note: string | null };

async function ttyCheck(env: Record<string, string> = {}): Promise<{ code: number; tty: Check }> {
  const r = await run(binary("verify"), ["--json", "--no-golden", binary("verify")], {
    cwd: root,
    env,
    timeoutMs: 110_000,
  });
  const checks = (r.json.data ?? r.json.error.detail).tools[0].checks as Check[];
  return { code: r.code, tty: checks.find((c) => c.id === "noninteractive.tty")! };
}

describe("the terminal probe", () => {
  test("with python3 on PATH, every command of verify itself runs on a pty under --no-input and passes", async () => {
    const { code, tty } = await ttyCheck();
    expect(tty.status).toBe("pass");
    expect(code).toBe(0);
  }, 120_000);

  test("with no python3 on PATH, noninteractive.tty is skipped with the reason, and the tool still conforms", async () => {
    // A PATH holding only what verify's own plumbing runs (mkfifo for the watched stdin).
    const bin = mkdtempSync(join(tmpdir(), "path-without-python-"));
    try {
      symlinkSync(Bun.which("mkfifo")!, join(bin, "mkfifo"));
      const { code, tty } = await ttyCheck({ PATH: bin });
      expect({ status: tty.status, note: tty.note }).toEqual({
        status: "skip",
        note: "no pseudo-terminal: no python3 on PATH (verify opens one with python3's standard library)",
      });
      expect(code).toBe(0);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 120_000);
});
