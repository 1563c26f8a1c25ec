/**
 * The validators a compiled tool carries: for each command, its flags and
 * its result checked against the JSON Schema its zod declaration describes
 * (the same document --describe publishes), generated here as standalone
 * code by ajv. The binary then never builds a zod schema: zod's start-up
 * cost is paid once, at build time.
 *
 * A schema JSON Schema cannot express (a transform, a refinement) fails the
 * build rather than being checked less strictly in the binary than in-process.
 */
import Ajv2020 from "ajv/dist/2020";
import standaloneCode from "ajv/dist/standalone";
import { _ } from "ajv";
import * as z from "zod/mini";
import { join } from "node:path";
import type { Command } from "../declare/define.ts";
import * as formats from "./formats.ts";
import { boundsIn, type Bounds } from "../cli/validate.ts";

type JsonSchema = Record<string, unknown>;
type Def = { type: string; checks?: { _zod: { def: { check: string } } }[]; [key: string]: unknown };

const DRAFT = "draft-2020-12" as const;
const formatsModule = join(import.meta.dir, "formats.ts");

/** Types whose meaning JSON Schema cannot carry: a transform (or a pipe into one) changes the value, which a validator cannot. */
const UNCOMPILABLE = new Set(["transform", "pipe", "custom", "promise", "lazy", "function"]);

/** Refuses what JSON Schema would silently drop or change: refinements and transforms anywhere in the schema. */
function assertCompilable(schema: unknown, where: string, seen = new Set<unknown>()): void {
  const def = (schema as { _zod?: { def?: Def } } | null)?._zod?.def;
  if (!def || seen.has(schema)) return;
  seen.add(schema);
  if (UNCOMPILABLE.has(def.type)) throw new Error(`${where}: a ${def.type} cannot be compiled into the binary's validator; declare plain data and do the work in run()`);
  for (const check of def.checks ?? [])
    if (check._zod.def.check === "custom") throw new Error(`${where}: a refinement cannot be compiled into the binary's validator; express it as a JSON Schema check or in run()`);
  for (const value of Object.values(def)) {
    if (Array.isArray(value)) for (const v of value) assertCompilable(v, where, seen);
    else if (value && typeof value === "object") {
      if ("_zod" in value) assertCompilable(value, where, seen);
      else for (const v of Object.values(value)) assertCompilable(v, where, seen);
    }
  }
}

function jsonSchemaOf(schema: z.ZodMiniType, io: "input" | "output", where: string): JsonSchema {
  assertCompilable(schema, where);
  return z.toJSONSchema(schema, { target: DRAFT, io, unrepresentable: "throw" }) as JsonSchema;
}

/** Each bounded number flag's bounds, as the in-process path reads them too. */
function boundsOf(flags: JsonSchema): Record<string, Bounds> {
  const all = Object.entries((flags.properties ?? {}) as Record<string, JsonSchema>).map(([key, p]) => [key, boundsIn(p)] as const);
  return Object.fromEntries(all.filter(([, b]) => b.min !== undefined || b.max !== undefined));
}

/** An ES module exporting `flags` and `result` validators and the flags' `bounds`. */
export function validatorModule(tool: string, command: Command): string {
  const where = `${tool} ${command.name}`;
  const flags = jsonSchemaOf(command.flags, "input", `${where} flags`);
  const result = jsonSchemaOf(command.result, "output", `${where} result`);
  const ajv = new Ajv2020({
    code: { source: true, esm: true, formats: _`require(${formatsModule})` },
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
  return `${standaloneCode(ajv, { flags: "flags", result: "result" })}\nexport const bounds = ${JSON.stringify(boundsOf(flags))};\n`;
}
