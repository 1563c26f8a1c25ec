/**
 * A command's validators: its flags and its result checked against their
 * JSON Schema by ajv, configured once here. The build writes them out as
 * standalone code the binary carries (so a binary never builds a schema);
 * an in-process run compiles the same schemas with the same ajv options in
 * memory. Either way the runtime checks with `compiledChecks`.
 */
import Ajv2020 from "ajv/dist/2020";
import standaloneCode from "ajv/dist/standalone";
import { _ } from "ajv";
import { join } from "node:path";
import type { Bounds, CompiledValidators } from "../cli/index.ts";
import * as formats from "./formats.ts";
import type { JsonSchema } from "./json-schema.ts";

const formatsModule = join(import.meta.dir, "formats.ts");

function ajvFor(standalone: boolean, flags: JsonSchema, result: JsonSchema): Ajv2020 {
  const ajv = new Ajv2020({
    code: standalone ? { source: true, esm: true, formats: _`require(${formatsModule})` } : {},
    // zod's meaning: defaults fill absent flags, unknown result keys are dropped, lengths count UTF-16 units.
    useDefaults: true,
    removeAdditional: true,
    unicode: false,
    strict: false,
    logger: false,
  });
  for (const [name, check] of Object.entries(formats)) ajv.addFormat(name, check);
  ajv.addSchema(flags, "flags");
  ajv.addSchema(result, "result");
  return ajv;
}

/** The integer bounds a number's JSON Schema sets: what OUT_OF_RANGE reports as `allowed`. */
export function boundsIn(js: JsonSchema): Bounds {
  const min =
    typeof js.minimum === "number"
      ? js.minimum
      : typeof js.exclusiveMinimum === "number"
        ? js.exclusiveMinimum + 1
        : undefined;
  const max =
    typeof js.maximum === "number"
      ? js.maximum
      : typeof js.exclusiveMaximum === "number"
        ? js.exclusiveMaximum - 1
        : undefined;
  return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
}

/** Each bounded number flag's bounds. */
function boundsOf(flags: JsonSchema): Record<string, Bounds> {
  const all = Object.entries((flags.properties ?? {}) as Record<string, JsonSchema>).map(
    ([key, p]) => [key, boundsIn(p)] as const,
  );
  return Object.fromEntries(all.filter(([, b]) => b.min !== undefined || b.max !== undefined));
}

export interface CommandValidators {
  /** Compiled in memory, for an in-process run. */
  live(): CompiledValidators;
  /** An ES module exporting `flags`, `result` and `bounds`: what the binary carries. */
  module(): string;
}

export function validatorsOf(flags: JsonSchema, result: JsonSchema): CommandValidators {
  let live: CompiledValidators | undefined;
  return {
    live() {
      if (live) return live;
      const ajv = ajvFor(false, flags, result);
      live = { flags: ajv.getSchema("flags")!, result: ajv.getSchema("result")!, bounds: boundsOf(flags) };
      return live;
    },
    module: () =>
      `${standaloneCode(ajvFor(true, flags, result), { flags: "flags", result: "result" })}\nexport const bounds = ${JSON.stringify(boundsOf(flags))};\n`,
  };
}
