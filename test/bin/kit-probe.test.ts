/**
 * The kit's runtime rules that only a process shows, on a compiled tool built
 * only to exercise them: what the command's own children see after the scope
 * split's respawn, and the bytes on stdout. The rest of these rules are tested
 * in-process in test/seam/kit.test.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../../scripts/compile.ts";
import { root, run } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

let probe: string;
beforeAll(async () => {
  probe = join(mkdtempSync(join(tmpdir(), "probe-bin-")), "probe");
  await compile(join(root, "test", "fixtures", "probe", "main.ts"), probe);
}, SLOW_HOOK);

const READ = "read-credential-0123456789";
const WRITE = "write-credential-0123456789";

describe("identity (contract §10)", () => {
  test("a read verb runs without the write credential, and so do its child processes", async () => {
    const r = await run(probe, ["secret", "get"], { env: { PROBE_READ_TOKEN: READ, PROBE_WRITE_TOKEN: WRITE } });
    expect(r.json.data).toEqual({ sees_read: true, sees_write: false, child_sees_write: false });
  });

  test("the scope split still reads --params from stdin", async () => {
    const r = await run(probe, ["secret", "get", "--params", "-"], {
      env: { PROBE_READ_TOKEN: READ, PROBE_WRITE_TOKEN: WRITE },
      stdin: "{}",
    });
    expect([r.code, r.json.data?.sees_write]).toEqual([0, false]);
  });

  test("apply holds the write credential", async () => {
    const r = await run(probe, ["apply"], { env: { PROBE_READ_TOKEN: READ, PROBE_WRITE_TOKEN: WRITE } });
    expect(r.json.data).toEqual({ sees_read: true, sees_write: true, child_sees_write: true });
  });
});

describe("failures become envelopes", () => {
  test("an uncaught exception is INTERNAL, exit 1, with no stack trace on stdout", async () => {
    const r = await run(probe, ["explode"], { env: { PROBE_READ_TOKEN: READ } });
    expect([r.code, r.json.error.code]).toEqual([1, "INTERNAL"]);
    expect(r.json.error.message).toBe("unexpected error: cannot read properties of undefined (reading 'x')");
    expect(r.stdout).not.toMatch(/\n\s+at /);
  });
});
