/**
 * The one validator path: what the compile step makes of a command's
 * schemas, as an in-process run uses it (compiled in memory) and as a binary
 * carries it (the standalone module the build writes). Each answer is the
 * teaching error the contract asks for, written out here.
 */
import { afterAll, beforeAll, describe as group, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as z from "zod/mini";
import { compiledChecks, type Checks, type CompiledValidators } from "../../src/kit/cli/checks.ts";
import { compileTool } from "../../src/kit/compile/index.ts";
import * as standIn from "../../src/kit/compile/zod-stand-in.ts";
import { defineCommand, defineTool, describe, type CommandSpec } from "../../src/kit/index.ts";
import { KitError } from "../../src/kit/output/errors.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const getCommand = (flags: z.ZodMiniObject): CommandSpec<any, any> =>
  defineCommand({
    verb: "get",
    tier: 1,
    rw: "read",
    summary: "s",
    flags,
    result: z.object({ items: z.array(z.object({ id: z.string(), n: z.nullable(z.number()) })) }),
    schema: "t.get@1",
    errors: [],
    run: async () => ({ items: [] }),
  });
const toolWith = (flags: z.ZodMiniObject) =>
  defineTool({ name: "t", version: "1", contractVersion: 0, purpose: "p", commands: [getCommand(flags)] });

const compiled = compileTool(
  toolWith(
    z.object({
      severity: z._default(z.enum(["low", "medium", "high"]), "low"),
      maxPages: z._default(z.int().check(z.minimum(1), z.maximum(500)), 50),
      url: z.optional(z.url()),
      id: describe(z.string().check(z.minLength(1), z.maxLength(5)), "An id."),
      lang: z.optional(z.string().check(z.regex(/^[a-z]{2}$/))),
      tags: z.optional(z.array(z.string())),
    }),
  ),
);
const head = compiled.index.commands[0]!;

let dir: string;
const doors: Record<string, Checks> = {};
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "checks-"));
  writeFileSync(join(dir, "get.validate.js"), compiled.validators.get!.module());
  doors["in-process"] = compiledChecks(compiled.validators.get!.live(), head.flags);
  doors.binary = compiledChecks((await import(join(dir, "get.validate.js"))) as CompiledValidators, head.flags);
}, SLOW_HOOK);
afterAll(() => rmSync(dir, { recursive: true, force: true }), SLOW_HOOK);

const outcome = async (checks: Checks, input: Record<string, unknown>) => {
  try {
    return { ok: await checks.flags(structuredClone(input)) };
  } catch (e) {
    if (!(e instanceof KitError)) throw e;
    return { code: e.code, message: e.message, ...(e.allowed === undefined ? {} : { allowed: e.allowed }) };
  }
};

const range = { min: 1, max: 500 };
const cases: [Record<string, unknown>, unknown][] = [
  [{ id: "a" }, { ok: { id: "a", severity: "low", maxPages: 50 } }],
  [
    { id: "a", severity: "high", maxPages: 7, url: "https://a.test/x", lang: "en", tags: ["x", "y"] },
    { ok: { id: "a", severity: "high", maxPages: 7, url: "https://a.test/x", lang: "en", tags: ["x", "y"] } },
  ],
  [{}, { code: "MISSING_FLAG", message: "--id is required" }],
  [{ id: "" }, { code: "INVALID_VALUE", message: "--id must have at least 1 character (got: '')" }],
  [{ id: "toolong" }, { code: "INVALID_VALUE", message: "--id must have at most 5 characters (got: 'toolong')" }],
  [
    { id: "a", severity: "urgent" },
    {
      code: "INVALID_ENUM",
      message: "--severity must be one of: low, medium, high (got: 'urgent')",
      allowed: ["low", "medium", "high"],
    },
  ],
  [
    { id: "a", maxPages: 0 },
    { code: "OUT_OF_RANGE", message: "--max-pages must be within 1..500 (got: 0)", allowed: range },
  ],
  [
    { id: "a", maxPages: 501 },
    { code: "OUT_OF_RANGE", message: "--max-pages must be within 1..500 (got: 501)", allowed: range },
  ],
  [
    { id: "a", maxPages: 1.5 },
    { code: "INVALID_VALUE", message: "--max-pages must be an integer (got: 1.5)" },
  ],
  [
    { id: "a", url: "not a url" },
    { code: "INVALID_VALUE", message: "--url must be a valid url (got: 'not a url')" },
  ],
  [
    { id: "a", lang: "english" },
    { code: "INVALID_VALUE", message: "--lang must match /^[a-z]{2}$/ (got: 'english')" },
  ],
  [
    { id: "a", tags: "x" },
    { code: "INVALID_VALUE", message: "--tags must be a list of string values (got: 'x')" },
  ],
  [{ id: 3 }, { code: "INVALID_VALUE", message: "--id must be a string (got: 3)" }],
];

for (const door of ["in-process", "binary"])
  group(`flags through the ${door} validators`, () => {
    for (const [input, expected] of cases)
      test(JSON.stringify(input), async () => {
        expect(await outcome(doors[door]!, input)).toEqual(expected as never);
      });
    test("results: valid data passes with unknown keys dropped; a lie names its path", () => {
      const checks = doors[door]!;
      expect(checks.result({ items: [{ id: "a", n: null, extra: 1 }], more: true })).toEqual({
        ok: true,
        data: { items: [{ id: "a", n: null }] },
      });
      expect(checks.result({ items: [{ id: "a", n: "three" }] })).toMatchObject({ ok: false, path: "items.0.n" });
    });
  });

group("the index the compile step derives from JSON Schema", () => {
  test("flag specs: kind, enum values, required and defaulted, in declaration order", () => {
    expect(
      head.flags.map((f) => [f.name, f.kind, f.required, f.defaulted, f.enumValues ?? f.itemKind ?? null]),
    ).toEqual([
      ["severity", "enum", false, true, ["low", "medium", "high"]],
      ["max-pages", "integer", false, true, null],
      ["url", "string", false, false, null],
      ["id", "string", true, false, null],
      ["lang", "string", false, false, null],
      ["tags", "array", false, false, "string"],
    ]);
  });
  test("--fields paths look through arrays and nullables", () => {
    expect(head.fields).toEqual(["items", "items.id", "items.n"]);
  });
});

group("what cannot be compiled fails the compile step", () => {
  test("a refinement", () => {
    expect(() => compileTool(toolWith(z.object({ n: z.number().check(z.refine((n) => n % 2 === 0)) })))).toThrow(
      "a refinement cannot be compiled",
    );
  });
  test("a transform", () => {
    expect(() =>
      compileTool(
        toolWith(
          z.object({
            s: z.pipe(
              z.string(),
              z.transform((s) => s.trim()),
            ),
          }),
        ),
      ),
    ).toThrow("cannot be compiled");
  });
  test("a zod member the binary's stand-in lacks, in a source the binary bundles", () => {
    const file = join(dir, "uses-email.ts");
    writeFileSync(
      file,
      `import * as z from "zod/mini";\nexport const flags = z.object({ to: z.email(), n: z.optional(z.int()) });\ntype T = z.output<typeof flags>;\n`,
    );
    expect(() => compileTool(toolWith(z.object({})), { sources: [file] })).toThrow(
      `z.email (${file}) is not among the zod members a compiled tool can declare with`,
    );
  });
});

group("the zod stand-in of a built tool", () => {
  test("declares anything and parses nothing", () => {
    const schema = standIn.object({ a: standIn.string().check(standIn.minLength(1)) });
    expect(() => schema.safeParse({})).toThrow("zod schemas are compiled out of a built tool");
    expect(() => schema.shape).toThrow("compiled out");
    expect(() => standIn.toJSONSchema()).toThrow("compiled out");
  });
});
