/** The kit's runtime rules, seen from outside a compiled tool built only to exercise them. */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../../scripts/compile.ts";
import { root, run } from "../helpers/bin.ts";

let probe: string;
beforeAll(async () => {
  probe = join(mkdtempSync(join(tmpdir(), "probe-bin-")), "probe");
  await compile(join(root, "test", "fixtures", "probe", "main.ts"), probe);
});

const READ = "read-credential-0123456789";
const WRITE = "write-credential-0123456789";

describe("identity (contract §10)", () => {
  test("a read verb runs without the write credential, and so do its child processes", async () => {
    const r = await run(probe, ["secret", "get"], { env: { PROBE_READ_TOKEN: READ, PROBE_WRITE_TOKEN: WRITE } });
    expect(r.json.data).toEqual({ sees_read: true, sees_write: false, child_sees_write: false });
  });

  test("the scope split still reads --params from stdin", async () => {
    const r = await run(probe, ["secret", "get", "--params", "-"], { env: { PROBE_READ_TOKEN: READ, PROBE_WRITE_TOKEN: WRITE }, stdin: "{}" });
    expect([r.code, r.json.data?.sees_write]).toEqual([0, false]);
  });

  test("apply holds the write credential", async () => {
    const r = await run(probe, ["apply"], { env: { PROBE_READ_TOKEN: READ, PROBE_WRITE_TOKEN: WRITE } });
    expect(r.json.data).toEqual({ sees_read: true, sees_write: true, child_sees_write: true });
  });

  test("a missing required variable is a precondition failure whose hint names it", async () => {
    const r = await run(probe, ["secret", "get"]);
    expect([r.code, r.json.error.code]).toEqual([3, "MISSING_ENV"]);
    expect(r.json.error.hint).toContain("PROBE_READ_TOKEN");
    expect(r.json.error.detail).toEqual({ variable: "PROBE_READ_TOKEN", scope: "read" });
  });

  test("--describe lists the variables with their scopes", async () => {
    const r = await run(probe, ["--describe"]);
    expect(r.json.env).toEqual([
      { name: "PROBE_READ_TOKEN", scope: "read", required: true, description: "A read credential." },
      { name: "PROBE_WRITE_TOKEN", scope: "write", description: "A write credential." },
    ]);
  });

  test("a declared credential is redacted even though its name does not end in _KEY", async () => {
    const r = await run(probe, ["thing", "delete", "--id", READ], { env: { PROBE_READ_TOKEN: READ } });
    expect(r.stdout).not.toContain(READ);
  });
});

describe("failures become envelopes", () => {
  test("an uncaught exception is INTERNAL, exit 1, with no stack trace on stdout", async () => {
    const r = await run(probe, ["explode"], { env: { PROBE_READ_TOKEN: READ } });
    expect([r.code, r.json.error.code]).toEqual([1, "INTERNAL"]);
    expect(r.json.error.message).toBe("unexpected error: cannot read properties of undefined (reading 'x')");
    expect(r.stdout).not.toMatch(/\n\s+at /);
  });

  test("a result that breaks its own schema is INTERNAL, never shipped", async () => {
    const r = await run(probe, ["misreport"], { env: { PROBE_READ_TOKEN: READ } });
    expect([r.code, r.json.error.code]).toEqual([1, "INTERNAL"]);
    expect(r.json.error.message).toContain("does not match probe.misreport@1 at 'count'");
  });
});

describe("prompts off a terminal", () => {
  test("a confirmation is CONFIRMATION_REQUIRED (exit 5); --yes gives it", async () => {
    const env = { PROBE_READ_TOKEN: READ };
    const refused = await run(probe, ["thing", "delete", "--id", "t1"], { env });
    expect([refused.code, refused.json.error.code]).toEqual([5, "CONFIRMATION_REQUIRED"]);
    expect(refused.json.error.hint).toContain("--yes");
    const given = await run(probe, ["thing", "delete", "--id", "t1", "--yes"], { env });
    expect([given.code, given.json.data]).toEqual([0, { deleted: "t1" }]);
  });

  test("a value that would be asked for is INPUT_REQUIRED (exit 2)", async () => {
    const r = await run(probe, ["thing", "create", "--no-input"], { env: { PROBE_READ_TOKEN: READ } });
    expect([r.code, r.json.error.code]).toEqual([2, "INPUT_REQUIRED"]);
  });
});
