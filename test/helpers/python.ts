/**
 * The Python interpreter itself first on PATH for a test run. Where python3 on
 * PATH is a version manager's shim (a script: pyenv's starts ~25 processes and
 * spends ~0.6 s of CPU on every call), each run of a Python tool verify judges
 * would pay it: ~40 runs a tool, a few thousand in the suite. What the tests
 * judge is the tool, not the shim.
 *
 * The shim is asked once; its answer is kept as a link in the machine's temp
 * folder, since every test file starts afresh under `bun test --parallel`.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Puts a folder holding `python3` → the interpreter the shim resolves to in front of PATH; nothing where there is no shim. */
export function interpreterFirstOnPath(machineTmp: string): void {
  const found = Bun.which("python3");
  if (!found || readFileSync(found).subarray(0, 2).toString() !== "#!") return;
  const bin = join(machineTmp, `agent-cli-kit-python-${createHash("sha256").update(found).digest("hex").slice(0, 12)}`);
  if (!existsSync(join(bin, "python3")) && !linkInterpreter(found, bin, machineTmp)) return;
  process.env.PATH = `${bin}${delimiter}${process.env.PATH ?? ""}`;
}

/** The shim asked for its interpreter, the link made beside and renamed into place (files racing here agree). */
function linkInterpreter(shim: string, bin: string, machineTmp: string): boolean {
  const asked = Bun.spawnSync([shim, "-c", "import sys; print(sys.executable)"], { stdout: "pipe", stderr: "ignore" });
  const real = asked.stdout.toString().trim();
  if (asked.exitCode !== 0 || !real) return false;
  const made = mkdtempSync(join(machineTmp, "agent-cli-kit-python-"));
  symlinkSync(real, join(made, "python3"));
  rmSync(bin, { recursive: true, force: true });
  try {
    renameSync(made, bin);
  } catch {
    rmSync(made, { recursive: true, force: true });
  }
  return existsSync(join(bin, "python3"));
}
