/**
 * contract §11 "Comparable": the receiver validates every step's `data`
 * against the schema registered for its `meta.schema`, and rejects the
 * whole report on a mismatch, naming the step, the schema id and the path.
 * The registry is the tools' describe documents (their output schemas).
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import { pathOf } from "../cli/checks.ts";
import * as formats from "../compile/formats.ts";
import type { DescribeDoc, JsonSchema } from "../introspection/describe-doc.ts";

export type Verdict = { ok: true } | { ok: false; step: number | null; schema: string | null; path: string; message: string };

export class SchemaRegistry {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, logger: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly schemas: ReadonlyMap<string, JsonSchema>) {
    for (const [name, check] of Object.entries(formats)) this.ajv.addFormat(name, check);
  }

  static of(docs: readonly DescribeDoc[]): SchemaRegistry {
    return new SchemaRegistry(new Map(docs.flatMap((d) => d.commands.map((c) => [c.result_schema, c.output_schema] as const))));
  }

  get size(): number {
    return this.schemas.size;
  }

  validator(id: string): ValidateFunction | null {
    const hit = this.compiled.get(id);
    if (hit) return hit;
    const schema = this.schemas.get(id);
    if (!schema) return null;
    const fn = this.ajv.compile(schema);
    this.compiled.set(id, fn);
    return fn;
  }
}

const jsonPath = (pointer: string): string =>
  pathOf(pointer)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : /^[A-Za-z_][\w]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`))
    .join("");

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The report's own shape first, then each successful step's data against its schema. */
export function ingest(report: unknown, registry: SchemaRegistry): Verdict {
  const refuse = (path: string, message: string, step: number | null = null, schema: string | null = null): Verdict => ({ ok: false, step, schema, path, message });
  if (!isObject(report)) return refuse("$", "the report is not a JSON object");
  for (const key of ["job_id", "event_type", "event_id", "status"]) if (typeof report[key] !== "string") return refuse(`$.${key}`, "must be a string");
  if (!Array.isArray(report.steps)) return refuse("$.steps", "must be a list");
  for (const [i, step] of report.steps.entries()) {
    if (!isObject(step) || typeof step.ok !== "boolean") return refuse(`$.steps[${i}]`, "must be a step record with ok", i);
    if (!step.ok) continue;
    const id = step.schema;
    if (typeof id !== "string") return refuse(`$.steps[${i}].schema`, "a successful step must name its result schema", i);
    const validate = registry.validator(id);
    if (!validate) return refuse(`$.steps[${i}].schema`, `no schema is registered for ${id}`, i, id);
    if (!validate(step.data)) {
      const e = validate.errors![0]!;
      return refuse(`$.steps[${i}].data${jsonPath(e.instancePath)}`, e.message ?? e.keyword, i, id);
    }
  }
  return { ok: true };
}
