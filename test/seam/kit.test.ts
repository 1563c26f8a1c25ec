/**
 * The kit's runtime rules, in-process through its seam (runTool over a
 * KitIO), on a tool built only to exercise them and on seo: the scope split,
 * failures as envelopes, prompts off a terminal, cancellation, the output
 * modes and the tool-level documents. What only a process can show (a
 * child's environment, stdout bytes) is in test/bin/kit-probe.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { probe } from "../fixtures/probe/main.ts";
import seoTool from "../../tools/seo/tool.ts";
import { runInProcess } from "../helpers/in-process.ts";
import { compileTool } from "../../src/kit/compile/index.ts";
import { defineTool, KitError } from "../../src/kit/index.ts";
import * as z from "zod/mini";

const READ = "read-credential-0123456789";
const WRITE = "write-credential-0123456789";

describe("identity (contract §10)", () => {
  test("a read verb is run again without the write credential", async () => {
    const r = await runInProcess(probe, ["secret", "get"], {
      env: { PROBE_READ_TOKEN: READ, PROBE_WRITE_TOKEN: WRITE },
    });
    expect([r.code, r.runs]).toEqual([0, 2]);
    expect(r.json.data).toMatchObject({ sees_read: true, sees_write: false });
  });

  test("apply holds the write credential, in the one run", async () => {
    const r = await runInProcess(probe, ["apply"], { env: { PROBE_READ_TOKEN: READ, PROBE_WRITE_TOKEN: WRITE } });
    expect([r.code, r.runs]).toEqual([0, 1]);
    expect(r.json.data).toMatchObject({ sees_read: true, sees_write: true });
  });

  test("a missing required variable is MISSING_ENV (exit 3), naming it", async () => {
    const r = await runInProcess(probe, ["secret", "get"]);
    expect([r.code, r.json.error.code]).toEqual([3, "MISSING_ENV"]);
    expect(r.json.error.detail).toEqual({ variable: "PROBE_READ_TOKEN", scope: "read" });
  });

  test("a declared credential is redacted from every byte", async () => {
    const r = await runInProcess(probe, ["thing", "delete", "--id", READ, "--yes"], {
      env: { PROBE_READ_TOKEN: READ },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(READ);
    expect(r.json.data.deleted).toBe("[REDACTED]");
  });
});

describe("failures become envelopes", () => {
  test("an uncaught exception is INTERNAL, exit 1", async () => {
    const r = await runInProcess(probe, ["explode"], { env: { PROBE_READ_TOKEN: READ } });
    expect([r.code, r.json.error.code]).toEqual([1, "INTERNAL"]);
    expect(r.json.error.message).toBe("unexpected error: cannot read properties of undefined (reading 'x')");
  });

  test("a result that breaks its own schema is INTERNAL, naming where", async () => {
    const r = await runInProcess(probe, ["misreport"], { env: { PROBE_READ_TOKEN: READ } });
    expect([r.code, r.json.error.code]).toEqual([1, "INTERNAL"]);
    expect(r.json.error.message).toContain("does not match probe.misreport@1 at 'count'");
  });

  test("a signal while a command runs is CANCELLED, exit 130, with one envelope", async () => {
    const r = await runInProcess(probe, ["idle"], {
      env: { PROBE_READ_TOKEN: READ },
      signal: { name: "SIGTERM", afterMs: 20 },
    });
    expect(r.code).toBe(130);
    expect(r.json.error).toMatchObject({ code: "CANCELLED", message: "interrupted by SIGTERM", retryable: true });
  });
});

describe("the codes a command declares are the codes it answers with", () => {
  /** `item get` declares NOT_FOUND and nothing else; what it throws is chosen by --throw. */
  const claims = defineTool({
    name: "claims",
    version: "1.0.0",
    contractVersion: 0,
    purpose: "Throws the code it is told to.",
    commands: [
      {
        resource: "item",
        verb: "get",
        tier: 1,
        rw: "read",
        summary: "Throw a code.",
        flags: z.object({ throw: z.enum(["NOT_FOUND", "CONFLICT", "ENOSPC"]) }),
        result: z.object({}),
        schema: "claims.item.get@1",
        errors: ["NOT_FOUND"],
        run: async (ctx) => {
          if (ctx.flags.throw === "ENOSPC") throw Object.assign(new Error("no space"), { code: "ENOSPC" });
          throw new KitError(ctx.flags.throw, "thrown as told", { hint: "as told" });
        },
      },
    ],
  });

  test("a declared code is answered as thrown", async () => {
    const r = await runInProcess(claims, ["item", "get", "--throw", "NOT_FOUND"]);
    expect([r.code, r.json.error.code, r.json.error.message]).toEqual([3, "NOT_FOUND", "thrown as told"]);
  });

  test("a code the command never declared is INTERNAL naming it, the original in detail", async () => {
    const r = await runInProcess(claims, ["item", "get", "--throw", "CONFLICT"]);
    expect(r.code).toBe(1);
    expect(r.json.error).toMatchObject({
      code: "INTERNAL",
      message: "item get raised CONFLICT, which it does not declare (its errors: NOT_FOUND)",
      detail: { undeclared: { code: "CONFLICT", message: "thrown as told", hint: "as told" } },
    });
  });

  test("a failure of the machine (no space left) keeps the code the kit gives it", async () => {
    const r = await runInProcess(claims, ["item", "get", "--throw", "ENOSPC"]);
    expect([r.code, r.json.error.code]).toEqual([4, "UPSTREAM_ERROR"]);
  });
});

describe("prompts off a terminal", () => {
  test("a confirmation is CONFIRMATION_REQUIRED (exit 5); --yes gives it", async () => {
    const env = { PROBE_READ_TOKEN: READ };
    const refused = await runInProcess(probe, ["thing", "delete", "--id", "t1"], { env });
    expect([refused.code, refused.json.error.code]).toEqual([5, "CONFIRMATION_REQUIRED"]);
    const given = await runInProcess(probe, ["thing", "delete", "--id", "t1", "--yes"], { env });
    expect([given.code, given.json.data]).toEqual([0, { deleted: "t1" }]);
  });

  test("a value that would be asked for is INPUT_REQUIRED (exit 2)", async () => {
    const r = await runInProcess(probe, ["thing", "create", "--no-input"], { env: { PROBE_READ_TOKEN: READ } });
    expect([r.code, r.json.error.code]).toEqual([2, "INPUT_REQUIRED"]);
  });
});

describe("output modes and tool-level answers", () => {
  test("on a terminal the answer is text, not JSON; --json asks for JSON anyway", async () => {
    const text = await runInProcess(seoTool, ["audit", "--severity", "urgent"], { tty: true });
    expect(text.code).toBe(2);
    expect(text.stdout).toBe("");
    expect(text.stderr).toContain("INVALID_ENUM");
    const json = await runInProcess(seoTool, ["audit", "--severity", "urgent", "--json"], { tty: true });
    expect(json.json.error.code).toBe("INVALID_ENUM");
  });

  test("--json --toon is CONFLICTING_FLAGS, answered in JSON", async () => {
    const r = await runInProcess(seoTool, ["finding", "list", "--json", "--toon"]);
    expect([r.code, r.json.error.code]).toEqual([2, "CONFLICTING_FLAGS"]);
  });

  test("--help --json is an envelope whose data is the help text and usage", async () => {
    const r = await runInProcess(seoTool, ["finding", "list", "--help", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json.meta.schema).toBe("seo.help@1");
    expect(r.json.data.usage).toBe("seo finding list [flags]");
    expect(r.json.data.help).toContain("--severity");
  });

  test("--skill prints the SKILL.md the compile step renders; in-process, --spec prints the identity the tool declares", async () => {
    const skill = await runInProcess(seoTool, ["--skill"]);
    expect([skill.code, skill.stdout]).toEqual([0, compileTool(seoTool).skill]);
    const spec = await runInProcess(seoTool, ["--spec"]);
    expect([spec.code, Bun.YAML.parse(spec.stdout)]).toEqual([
      0,
      { name: "seo", version: seoTool.version, contract_version: 0, purpose: seoTool.purpose },
    ]);
  });

  test("a command word after a flag is a USAGE error that shows the command shape", async () => {
    const r = await runInProcess(seoTool, ["--json", "audit"]);
    expect([r.code, r.json.error.code]).toEqual([2, "USAGE"]);
    expect(r.json.error.hint).toBe("write `seo audit [flags]`");
  });
});
