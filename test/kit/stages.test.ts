/** runTool's stages, each on its own: parse, resolve, scope credentials, pages, emit. */
import { describe, expect, test } from "bun:test";
import { readCommandFlags } from "../../src/kit/cli/command-flags.ts";
import { earlyUniversal, universalOf, type FlagSpec } from "../../src/kit/cli/flags.ts";
import { resolveCommand } from "../../src/kit/cli/resolve.ts";
import { assertRequiredEnv, withheldFrom, type EnvVar } from "../../src/kit/identity/env.ts";
import { KIT_BOUNDS, pageRequestOf } from "../../src/kit/lists/bounds.ts";
import { emitEnvelope, modeOf, type Sink } from "../../src/kit/output/emit.ts";
import { failure, success, type Meta } from "../../src/kit/output/envelope.ts";
import { KitError, toErrorObject } from "../../src/kit/output/errors.ts";
import type { CommandHead, ToolIndex } from "../../src/kit/compile/index.ts";

const thrown = (f: () => unknown): KitError => {
  try {
    f();
  } catch (e) {
    if (e instanceof KitError) return e;
    throw e;
  }
  throw new Error("did not throw");
};
const rejected = async (p: Promise<unknown>): Promise<KitError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof KitError) return e;
    throw e;
  }
  throw new Error("did not reject");
};

describe("parse", () => {
  const specs: FlagSpec[] = [
    { key: "maxPages", name: "max-pages", kind: "integer", required: false, defaulted: true },
    { key: "tag", name: "tag", kind: "array", itemKind: "string", required: false, defaulted: false },
  ];
  const io = (stdin: string) => ({ cwd: "/", readStdin: async () => stdin });

  test("argv: flags converted by kind, universal flags read by the table (--yes is --force)", async () => {
    const r = await readCommandFlags(
      ["--max-pages", "7", "--tag", "a", "--tag", "b", "--yes", "--limit", "3"],
      specs,
      "t get",
      io(""),
    );
    expect(r.input).toEqual({ maxPages: 7, tag: ["a", "b"] });
    expect(r.universal).toMatchObject({ force: true, limit: "3", dryRun: false, json: false });
  });

  test("--params -: JSON values as they are, universal values among them", async () => {
    const r = await readCommandFlags(
      ["--params", "-"],
      specs,
      "t get",
      io('{"max-pages": 9, "dry-run": true, "cursor": "c1"}'),
    );
    expect(r.input).toEqual({ maxPages: 9 });
    expect(r.universal).toMatchObject({ dryRun: true, cursor: "c1", params: "-" });
  });

  test("--params beside a command flag is CONFLICTING_FLAGS", async () => {
    const e = await rejected(readCommandFlags(["--params", "-", "--max-pages", "2"], specs, "t get", io("{}")));
    expect(e.code).toBe("CONFLICTING_FLAGS");
  });

  test("the early flags are read off argv as whole tokens, -h included", () => {
    expect(earlyUniversal(["page", "get", "-h", "--json"])).toEqual({
      json: true,
      toon: false,
      describe: false,
      help: true,
    });
    expect(earlyUniversal(["--jsonx", "--describe=1"])).toEqual({
      json: false,
      toon: false,
      describe: false,
      help: false,
    });
    expect(universalOf({})).toMatchObject({ json: false, force: false, wait: false });
  });
});

describe("resolve", () => {
  const head = (name: string): CommandHead => {
    const [resource, verb] = name.includes(" ") ? name.split(" ") : [undefined, name];
    return {
      name,
      ...(resource ? { resource } : {}),
      verb: verb!,
      tier: 1,
      rw: "read",
      schema: `t.${name.replace(" ", ".")}@1`,
      pagination: null,
      flags: [],
      fields: [],
    } as CommandHead;
  };
  const tool: ToolIndex = {
    name: "t",
    version: "1",
    contractVersion: 0,
    commands: [head("audit"), head("page get"), head("page list")],
    credentials: [],
  };

  test("words to a command, and the words left over", () => {
    expect(resolveCommand(tool, ["page", "get"]).command.name).toBe("page get");
    expect(resolveCommand(tool, ["audit", "x"]).extra).toEqual(["x"]);
  });

  test("a resource without its verb lists the verbs; a forbidden synonym names the canonical verb", () => {
    expect(thrown(() => resolveCommand(tool, ["page"]))).toMatchObject({
      code: "UNKNOWN_COMMAND",
      allowed: ["page get", "page list"],
    });
    expect(thrown(() => resolveCommand(tool, ["page", "show"])).hint).toContain("`t page get`");
  });
});

describe("scope credentials", () => {
  const env: EnvVar[] = [
    { name: "R_TOKEN", scope: "read", required: true, description: "read" },
    { name: "W_TOKEN", scope: "write", required: true, description: "write" },
  ];
  const read = { verb: "list", tier: 1 as const, rw: "read" as const, env };
  const apply = { verb: "apply", tier: 1 as const, rw: "write" as const, env };

  test("a read phase runs without a write credential that is present; apply keeps it", () => {
    expect(withheldFrom({}, read, { R_TOKEN: "r", W_TOKEN: "w" })).toEqual(["W_TOKEN"]);
    expect(withheldFrom({}, apply, { R_TOKEN: "r", W_TOKEN: "w" })).toEqual([]);
  });

  test("a required variable of the phase is MISSING_ENV; a write credential is never required of a read", () => {
    expect(thrown(() => assertRequiredEnv({}, read, {}))).toMatchObject({
      code: "MISSING_ENV",
      detail: { variable: "R_TOKEN", scope: "read" },
    });
    expect(() => assertRequiredEnv({}, read, { R_TOKEN: "r" })).not.toThrow();
    expect(thrown(() => assertRequiredEnv({}, apply, { R_TOKEN: "r" })).detail).toEqual({
      variable: "W_TOKEN",
      scope: "write",
    });
  });
});

describe("pages", () => {
  test("a list's page, bounded by the kit's ceiling; a cursor where no list is, refused", () => {
    const list = { name: "finding list", pagination: KIT_BOUNDS };
    expect(pageRequestOf(list, {}, {})).toMatchObject({ limit: 50, maxLimit: 1000, offset: 0 });
    expect(thrown(() => pageRequestOf(list, { limit: "1001" }, {}))).toMatchObject({
      code: "OUT_OF_RANGE",
      allowed: { min: 1, max: 1000 },
    });
    expect(pageRequestOf({ name: "audit", pagination: null }, {}, {})).toBeNull();
    expect(thrown(() => pageRequestOf({ name: "audit", pagination: null }, { cursor: "x" }, {})).code).toBe(
      "INVALID_CURSOR",
    );
  });
});

describe("emit", () => {
  const meta = {
    schema: null,
    duration_ms: 0,
    cost_usd: 0,
    llm_tokens: 0,
    pagination: null,
    truncated: false,
    truncation_hint: null,
    run_dir: null,
    outcome: { unit: "count", projected: null, realized: null, cost_usd: 0, confidence: null },
    next: [],
  } as Meta;
  const parts = { tool: "t", contractVersion: 0, command: "audit", meta };
  const sink = (mode: Sink["mode"]) => {
    const out = { stdout: "", stderr: "" };
    const s: Sink = {
      mode,
      redact: Object.assign((t: string) => t.replaceAll("s3cret", "[REDACTED]"), {
        secrets: ["s3cret"],
        add: () => {},
      }),
      colour: false,
      width: 80,
      writeStdout: async (t) => void (out.stdout += t),
      writeStderr: (t) => void (out.stderr += t),
    };
    return { s, out };
  };

  test("JSON off a terminal unless TOON is asked; text on one; --json wins", () => {
    expect([
      modeOf({ json: false, toon: false }, false),
      modeOf({ json: false, toon: false }, true),
      modeOf({ json: false, toon: true }, false),
      modeOf({ json: true, toon: true }, true),
    ]).toEqual(["json", "text", "toon", "json"]);
  });

  test("one redacted line of JSON; the exit code is the error's class", async () => {
    const { s, out } = sink("json");
    expect(await emitEnvelope(failure(parts, toErrorObject(new KitError("POLICY_DENIED", "no: s3cret"))), s)).toBe(5);
    expect(out.stdout).not.toContain("s3cret");
    expect(out.stdout.trim().split("\n")).toHaveLength(1);
  });

  test("text puts a failure on stderr and nothing on stdout; TOON encodes the same envelope", async () => {
    const text = sink("text");
    expect(await emitEnvelope(failure(parts, toErrorObject(new KitError("USAGE", "bad"))), text.s)).toBe(2);
    expect([text.out.stdout, text.out.stderr.includes("USAGE")]).toEqual(["", true]);
    const toon = sink("toon");
    expect(await emitEnvelope(success(parts, { n: 1 }), toon.s)).toBe(0);
    expect(toon.out.stdout).toContain("ok: true");
  });
});
