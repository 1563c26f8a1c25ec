/**
 * contract §11 "Comparable": the receiver validates every step's `data`
 * against the schema registered for its `meta.schema`, and rejects the
 * whole report on a mismatch, naming the step, the schema id and the path.
 * The report itself must satisfy the harness's own result schema
 * (harness.job.execute@1), and a step may only claim a schema of its tool.
 * The registry is the tools' describe documents (their output schemas).
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import { pathOf } from "../../kit/cli/index.ts";
import { formats } from "../../kit/compile/index.ts";
import type { DescribeDoc, JsonSchema } from "../../kit/introspection/index.ts";

export type Verdict =
  | { ok: true }
  | { ok: false; step: number | null; schema: string | null; path: string; message: string };

export class SchemaRegistry {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, logger: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly schemas: ReadonlyMap<string, JsonSchema>) {
    for (const [name, check] of Object.entries(formats)) this.ajv.addFormat(name, check);
  }

  static of(docs: readonly DescribeDoc[]): SchemaRegistry {
    return new SchemaRegistry(
      new Map(docs.flatMap((d) => d.commands.map((c) => [c.result_schema, c.output_schema] as const))),
    );
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

/** The schema a report itself must satisfy: the harness's own result. */
export const REPORT_SCHEMA = "harness.job.execute@1";

/** Where an ajv error points, with the property a required or additional-property error names. */
function errorPath(
  base: string,
  e: { instancePath: string; keyword: string; params: Record<string, unknown> },
): string {
  const extra =
    e.keyword === "required"
      ? e.params.missingProperty
      : e.keyword === "additionalProperties"
        ? e.params.additionalProperty
        : undefined;
  return `${base}${jsonPath(typeof extra === "string" ? `${e.instancePath}/${extra}` : e.instancePath)}`;
}

type Refuse = (path: string, message: string, step?: number | null, schema?: string | null) => Verdict;

/** One step of a report that already has the report's shape: a failed one carries its error and no data; a successful one, data valid for a schema of its own tool. */
function stepVerdict(
  step: Record<string, unknown>,
  i: number,
  registry: SchemaRegistry,
  refuse: Refuse,
): Verdict | null {
  const at = `$.steps[${i}]`;
  if (!step.ok) {
    if (!isObject(step.error)) return refuse(`${at}.error`, "a failed step must carry its error", i);
    if (step.data !== null) return refuse(`${at}.data`, "a failed step carries no data", i);
    return null;
  }
  if (step.error !== null) return refuse(`${at}.error`, "a successful step carries no error", i);
  const id = step.schema;
  if (typeof id !== "string") return refuse(`${at}.schema`, "a successful step must name its result schema", i);
  if (!id.startsWith(`${String(step.tool)}.`))
    return refuse(`${at}.schema`, `${id} is not a schema of the step's tool, ${String(step.tool)}`, i, id);
  const validate = registry.validator(id);
  if (!validate) return refuse(`${at}.schema`, `no schema is registered for ${id}`, i, id);
  if (!validate(step.data)) {
    const e = validate.errors![0]!;
    return refuse(errorPath(`${at}.data`, e), e.message ?? e.keyword, i, id);
  }
  return null;
}

/** The report against the harness's own result schema first, then each step against its tool's. */
export function ingest(report: unknown, registry: SchemaRegistry): Verdict {
  const refuse: Refuse = (path, message, step = null, schema = null) => ({ ok: false, step, schema, path, message });
  if (!isObject(report)) return refuse("$", "the report is not a JSON object");
  const own = registry.validator(REPORT_SCHEMA);
  if (!own)
    return refuse("$", `no schema is registered for ${REPORT_SCHEMA}: reports cannot be checked`, null, REPORT_SCHEMA);
  if (!own(report)) {
    const e = own.errors![0]!;
    const step = /^\/steps\/(\d+)/.exec(e.instancePath)?.[1];
    return refuse(errorPath("$", e), e.message ?? e.keyword, step === undefined ? null : Number(step), REPORT_SCHEMA);
  }
  for (const [i, step] of (report.steps as Record<string, unknown>[]).entries()) {
    const verdict = stepVerdict(step, i, registry, refuse);
    if (verdict) return verdict;
  }
  return { ok: true };
}
