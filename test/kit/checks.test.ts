import { afterAll, beforeAll, describe as group, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as z from "zod/mini";
import { validatorModule } from "../../src/kit/compile/validators.ts";
import { compiledChecks, zodChecks, type Checks, type CompiledValidators } from "../../src/kit/cli/checks.ts";
import { defineCommand, defineTool, describe } from "../../src/kit/index.ts";
import { KitError } from "../../src/kit/output/errors.ts";
import { flagSpecsOf } from "../../src/kit/cli/flags.ts";
import * as standIn from "../../src/kit/compile/zod-stand-in.ts";

const command = defineTool({
  name: "t",
  version: "1",
  contractVersion: 0,
  purpose: "p",
  commands: [
    defineCommand({
      verb: "get",
      tier: 1,
      rw: "read",
      summary: "s",
      flags: z.object({
        severity: z._default(z.enum(["low", "medium", "high"]), "low"),
        maxPages: z._default(z.int().check(z.minimum(1), z.maximum(500)), 50),
        url: z.optional(z.url()),
        id: describe(z.string().check(z.minLength(1), z.maxLength(5)), "An id."),
        lang: z.optional(z.string().check(z.regex(/^[a-z]{2}$/))),
        tags: z.optional(z.array(z.string())),
      }),
      result: z.object({ items: z.array(z.object({ id: z.string(), n: z.nullable(z.number()) })) }),
      schema: "t.get@1",
      errors: [],
      run: async () => ({ items: [] }),
    }),
  ],
}).commands[0]!;
const specs = flagSpecsOf(command.flags);

let dir: string;
let compiled: Checks;
const viaZod = zodChecks(command, specs);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "checks-"));
  writeFileSync(join(dir, "get.validate.js"), validatorModule("t", command));
  compiled = compiledChecks((await import(join(dir, "get.validate.js"))) as CompiledValidators, specs);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const outcome = async (checks: Checks, input: Record<string, unknown>) => {
  try {
    return { ok: await checks.flags(structuredClone(input)) };
  } catch (e) {
    if (!(e instanceof KitError)) throw e;
    return { code: e.code, message: e.message, allowed: e.allowed };
  }
};

group("compiled validators agree with the zod schemas they come from", () => {
  const inputs: Record<string, unknown>[] = [
    { id: "a" },
    { id: "a", severity: "high", maxPages: 7, url: "https://a.test/x", lang: "en", tags: ["x", "y"] },
    {},
    { id: "" },
    { id: "toolong" },
    { id: "a", severity: "urgent" },
    { id: "a", maxPages: 0 },
    { id: "a", maxPages: 501 },
    { id: "a", maxPages: 1.5 },
    { id: "a", url: "not a url" },
    { id: "a", lang: "english" },
    { id: "a", tags: "x" },
    { id: 3 },
  ];
  for (const input of inputs)
    test(`flags ${JSON.stringify(input)}`, async () => {
      expect(await outcome(compiled, input)).toEqual(await outcome(viaZod, input));
    });

  test("results: valid data passes with unknown keys dropped; a lie names its path", () => {
    const good = { items: [{ id: "a", n: null, extra: 1 }], more: true };
    expect(compiled.result(structuredClone(good))).toEqual(viaZod.result(structuredClone(good)));
    expect(compiled.result(structuredClone(good))).toEqual({ ok: true, data: { items: [{ id: "a", n: null }] } });
    const bad = { items: [{ id: "a", n: "three" }] };
    expect(compiled.result(bad)).toMatchObject({ ok: false, path: "items.0.n" });
    expect(viaZod.result(bad)).toMatchObject({ ok: false, path: "items.0.n" });
  });
});

group("what cannot be compiled fails the build", () => {
  const withFlags = (flags: z.ZodMiniObject) => ({ ...command, flags });
  test("a refinement", () => {
    expect(() => validatorModule("t", withFlags(z.object({ n: z.number().check(z.refine((n) => n % 2 === 0)) })))).toThrow("a refinement cannot be compiled");
  });
  test("a transform", () => {
    expect(() => validatorModule("t", withFlags(z.object({ s: z.pipe(z.string(), z.transform((s) => s.trim())) })))).toThrow("cannot be compiled");
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
