import { describe, expect, test } from "bun:test";
import * as z from "zod/mini";
import { parseFields, project } from "../../src/kit/cli/fields.ts";
import { fieldPathsFrom } from "../../src/kit/compile/specs.ts";
import { jsonSchemaOf } from "../../src/kit/compile/json-schema.ts";

const fieldPaths = (schema: z.ZodMiniType) => fieldPathsFrom(jsonSchemaOf(schema, "output", "test"));
const result = z.object({
  total: z.number(),
  items: z.array(z.object({ url: z.string(), meta: z.object({ a: z.number(), b: z.number() }) })),
});

describe("--fields", () => {
  test("the valid paths come from the result schema, through arrays", () => {
    expect(fieldPaths(result)).toEqual(["total", "items", "items.url", "items.meta", "items.meta.a", "items.meta.b"]);
  });

  test("projects arrays element by element", () => {
    const data = {
      total: 2,
      items: [
        { url: "a", meta: { a: 1, b: 2 } },
        { url: "b", meta: { a: 3, b: 4 } },
      ],
    };
    expect(project(data, ["items.url", "items.meta.b"])).toEqual({
      items: [
        { url: "a", meta: { b: 2 } },
        { url: "b", meta: { b: 4 } },
      ],
    });
    expect(project(data, ["items.meta", "items.meta.a"])).toEqual({
      items: [{ meta: { a: 1, b: 2 } }, { meta: { a: 3, b: 4 } }],
    });
  });

  test("an unknown path is refused with the valid ones and a suggestion", () => {
    expect(() => parseFields("items.ulr", fieldPaths(result))).toThrow("--fields: 'items.ulr' is not in the result");
    try {
      parseFields("items.ulr", fieldPaths(result));
    } catch (e: any) {
      expect([e.code, e.hint]).toEqual(["INVALID_FIELDS", "did you mean items.url?"]);
    }
  });
});
