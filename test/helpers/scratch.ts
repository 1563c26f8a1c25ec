/**
 * Preloaded before every test file (bunfig.toml): one scratch folder per test
 * run (under `bun test --parallel`, where each file starts afresh: per file).
 * Every temp folder the tests make, and those the binaries they start make,
 * goes under it (TMPDIR), and it is removed when the run ends, so a run
 * leaves the machine's temp folder as it found it; the compiled probe and
 * image copies alone are ~110 MB each. What outlives a run (the shared
 * PostgreSQL server's data, the link to the Python interpreter) stays in the
 * machine's own temp folder.
 */
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SLOW_HOOK } from "./hooks.ts";
import { MACHINE_TMPDIR_ENV } from "./machine-tmp.ts";
import { interpreterFirstOnPath } from "./python.ts";

if (!process.env[MACHINE_TMPDIR_ENV]) {
  const machine = process.env.TMPDIR || "/tmp";
  const scratch = mkdtempSync(join(machine, "agent-cli-kit-test-"));
  process.env[MACHINE_TMPDIR_ENV] = machine;
  process.env.TMPDIR = scratch;
  interpreterFirstOnPath(machine);
  // A preload's afterAll runs once the run is over (bun test emits no "exit" to hook); under --parallel, once
  // each file is, as each file starts afresh.
  // Removing a few hundred megabytes on a busy machine outlasts bun's 5 s hook default.
  afterAll(() => rmSync(scratch, { recursive: true, force: true, maxRetries: 3 }), SLOW_HOOK);
}
