/**
 * The one place the kit reads a zod schema: each command's flags and result
 * become JSON Schema 2020-12 here, and everything after (the index's flag
 * specs and `--fields` paths, the describe document, the validators) is
 * derived from that JSON Schema. Zod is the declaration language only.
 *
 * A schema JSON Schema cannot express (a transform, a refinement) fails the
 * compile rather than being checked less strictly than it was declared.
 */
import * as z from "zod/mini";
import { DeclarationError } from "../declare/index.ts";

export type JsonSchema = Record<string, unknown>;
type Def = { type: string; checks?: { _zod: { def: { check: string } } }[]; [key: string]: unknown };

const DRAFT = "draft-2020-12" as const;

/** Types whose meaning JSON Schema cannot carry: a transform (or a pipe into one) changes the value, which a validator cannot. */
const UNCOMPILABLE = new Set(["transform", "pipe", "custom", "promise", "lazy", "function"]);

/** Refuses what JSON Schema would silently drop or change: refinements and transforms anywhere in the schema. */
function assertCompilable(schema: unknown, where: string, seen = new Set<unknown>()): void {
  const def = (schema as { _zod?: { def?: Def } } | null)?._zod?.def;
  if (!def || seen.has(schema)) return;
  seen.add(schema);
  if (def.type === "date")
    throw new DeclarationError(
      where,
      "a Date has no JSON Schema form, so no validator can check it",
      "declare z.iso.date() or z.iso.datetime() (an ISO 8601 string) and make the Date in run()",
    );
  if (UNCOMPILABLE.has(def.type))
    throw new DeclarationError(
      where,
      `a ${def.type} cannot be compiled into the binary's validator`,
      "declare plain data and do the work in run()",
    );
  for (const check of def.checks ?? [])
    if (check._zod.def.check === "custom")
      throw new DeclarationError(
        where,
        "a refinement cannot be compiled into the binary's validator",
        "express it as a JSON Schema check (min, max, regex, …) or in run()",
      );
  for (const value of Object.values(def)) {
    if (Array.isArray(value)) for (const v of value) assertCompilable(v, where, seen);
    else if (value && typeof value === "object") {
      if ("_zod" in value) assertCompilable(value, where, seen);
      else for (const v of Object.values(value)) assertCompilable(v, where, seen);
    }
  }
}

/** `input` for flags (what a caller may pass: defaults make a key optional), `output` for a result. */
export function jsonSchemaOf(schema: z.ZodMiniType, io: "input" | "output", where: string): JsonSchema {
  assertCompilable(schema, where);
  try {
    return z.toJSONSchema(schema, { target: DRAFT, io, unrepresentable: "throw" }) as JsonSchema;
  } catch (e) {
    throw new DeclarationError(
      where,
      `cannot be written as JSON Schema: ${(e as Error).message.split("\n")[0]}`,
      "declare it with types JSON Schema has: no dates, bigints, maps or sets",
    );
  }
}
