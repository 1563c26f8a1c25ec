import { describe as group, expect, test } from "bun:test";
import * as z from "zod/mini";
import { KitError } from "../../src/kit/output/errors.ts";
import { compiledChecks } from "../../src/kit/cli/checks.ts";
import { convertFlags } from "../../src/kit/cli/validate.ts";
import { jsonSchemaOf } from "../../src/kit/compile/json-schema.ts";
import { flagSpecsFrom } from "../../src/kit/compile/specs.ts";
import { validatorsOf } from "../../src/kit/compile/validators.ts";

const flags = z.object({
  severity: z._default(z.enum(["low", "medium", "high"]), "low"),
  maxPages: z._default(z.int().check(z.minimum(1), z.maximum(500)), 50),
  url: z.url(),
  tags: z.optional(z.array(z.string())),
  verbose: z.boolean(),
});

const js = jsonSchemaOf(flags, "input", "test");
const specs = flagSpecsFrom(js);
const checks = compiledChecks(validatorsOf(js, {}).live(), specs);

/** Both steps, as the runtime takes them: the specs' checks, then the compiled schema's. */
const check = async (raw: Record<string, unknown>, source: "argv" | "params") =>
  checks.flags(convertFlags(specs, raw, source));

async function rejection(raw: Record<string, unknown>, source: "argv" | "params" = "argv"): Promise<KitError> {
  try {
    await check(raw, source);
  } catch (e) {
    if (e instanceof KitError) return e;
    throw e;
  }
  throw new Error("accepted");
}

group("flag validation", () => {
  test("converts argv strings by the declared kind and applies defaults", async () => {
    expect(await check({ url: "https://a.test", "max-pages": "7", tags: ["a", "b"] }, "argv")).toEqual({
      severity: "low",
      maxPages: 7,
      url: "https://a.test",
      tags: ["a", "b"],
      verbose: false,
    });
  });

  test("rejects an enum value outside the set, listing the valid ones", async () => {
    const e = await rejection({ url: "https://a.test", severity: "urgent" });
    expect({ code: e.code, message: e.message, allowed: e.allowed, got: e.got }).toEqual({
      code: "INVALID_ENUM",
      message: "--severity must be one of: low, medium, high (got: 'urgent')",
      allowed: ["low", "medium", "high"],
      got: "urgent",
    });
  });

  test("rejects a number outside its range with the bounds in allowed", async () => {
    const e = await rejection({ url: "https://a.test", "max-pages": "0" });
    expect({ code: e.code, allowed: e.allowed, got: e.got }).toEqual({
      code: "OUT_OF_RANGE",
      allowed: { min: 1, max: 500 },
      got: 0,
    });
  });

  test("rejects text where a number belongs", async () => {
    const e = await rejection({ url: "https://a.test", "max-pages": "lots" });
    expect([e.code, e.message]).toEqual(["INVALID_VALUE", "--max-pages must be an integer (got: 'lots')"]);
  });

  test("a missing required flag is named", async () => {
    const e = await rejection({});
    expect([e.code, e.message]).toEqual(["MISSING_FLAG", "--url is required"]);
  });

  test("a malformed URL is an invalid value", async () => {
    expect((await rejection({ url: "not a url" })).code).toBe("INVALID_VALUE");
  });

  test("params are JSON-typed: a string where a number belongs is refused, not coerced", async () => {
    const e = await rejection({ url: "https://a.test", "max-pages": "7" }, "params");
    expect(e.code).toBe("INVALID_VALUE");
    expect(await check({ url: "https://a.test", "max-pages": 7 }, "params")).toMatchObject({ maxPages: 7 });
  });
});
