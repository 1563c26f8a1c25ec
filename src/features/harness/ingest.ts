/**
 * contract §11 "Comparable": the receiver validates every step's `data`
 * against the schema registered for its `meta.schema`, and rejects the
 * whole report on a mismatch, naming the step, the schema id and the path.
 * The report itself must satisfy the harness's own result schema
 * (harness.job.execute@1), and a step may only claim a schema of its tool.
 * The registry is the tools' describe documents (their output schemas).
 * The numbers must be the harness's own: each step's cost and tokens within
 * the bounds it checks a step's envelope against, each total their sum.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import { pathOf } from "../../kit/cli/index.ts";
import { formats } from "../../kit/compile/index.ts";
import type { DescribeDoc, JsonSchema } from "../../kit/introspection/index.ts";
import { roundUsd } from "../../kit/output/index.ts";
import { MAX_STEP_TOKENS, MAX_STEP_USD } from "./envelope.ts";
import { MAX_STEPS } from "./job.ts";

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

/** How far a total cost may be from its steps' sum: the harness rounds the sum to 1e-8 USD, and a float sum of 100 steps errs far less. */
const USD_TOLERANCE = 1e-6;

/** The totals of a report that has the report's shape: at most a job's steps, each within the harness's bounds, each total their sum. */
function totalsVerdict(report: Record<string, unknown>, refuse: Refuse): Verdict | null {
  const steps = report.steps as { cost_usd: number; llm_tokens: number }[];
  if (steps.length > MAX_STEPS) return refuse("$.steps", `a job has at most ${MAX_STEPS} steps (got ${steps.length})`);
  let usd = 0;
  let tokens = 0;
  for (const [i, s] of steps.entries()) {
    if (s.cost_usd > MAX_STEP_USD)
      return refuse(`$.steps[${i}].cost_usd`, `must be at most ${MAX_STEP_USD}, a step's bound (got ${s.cost_usd})`, i);
    if (s.llm_tokens > MAX_STEP_TOKENS)
      return refuse(
        `$.steps[${i}].llm_tokens`,
        `must be at most ${MAX_STEP_TOKENS}, a step's bound (got ${s.llm_tokens})`,
        i,
      );
    usd += s.cost_usd;
    tokens += s.llm_tokens;
  }
  const total = report.cost_usd as number;
  if (!(Math.abs(total - usd) <= USD_TOLERANCE))
    return refuse("$.cost_usd", `must be the sum of the steps' cost_usd, ${roundUsd(usd)} (got ${total})`);
  if (report.llm_tokens !== tokens)
    return refuse(
      "$.llm_tokens",
      `must be the sum of the steps' llm_tokens, ${tokens} (got ${String(report.llm_tokens)})`,
    );
  return null;
}

/** The report against the harness's own result schema first, then its totals, then each step against its tool's. */
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
  const totals = totalsVerdict(report, refuse);
  if (totals) return totals;
  for (const [i, step] of (report.steps as Record<string, unknown>[]).entries()) {
    const verdict = stepVerdict(step, i, registry, refuse);
    if (verdict) return verdict;
  }
  return { ok: true };
}
