/**
 * The verifier's own schemas of what a tool prints (contract §2, §4, §9 and
 * the SPEC's extensions), in valibot: nothing here comes from the kit, so a
 * kit bug cannot describe itself as correct.
 */
import * as v from "valibot";

const nonNegative = v.pipe(v.number(), v.minValue(0));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const ErrorObject = v.looseObject({
  code: v.string(),
  message: v.pipe(v.string(), v.minLength(1), v.check((m) => !/[\r\n]/.test(m), "message must be one line")),
  retryable: v.boolean(),
  hint: v.optional(v.string()),
  allowed: v.optional(v.unknown()),
  got: v.optional(v.unknown()),
  detail: v.optional(v.record(v.string(), v.unknown())),
});

export const Pagination = v.looseObject({
  limit: v.pipe(v.number(), v.integer(), v.minValue(1)),
  returned: count,
  total: v.nullable(count),
  next_cursor: v.nullable(v.pipe(v.string(), v.minLength(1))),
});

export const Outcome = v.looseObject({
  unit: v.picklist(["usd", "rank", "pct", "count", "ms"]),
  projected: v.nullable(v.number()),
  realized: v.nullable(v.number()),
  cost_usd: nonNegative,
  confidence: v.nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
});

export const Meta = v.looseObject({
  schema: v.nullable(v.string()),
  duration_ms: nonNegative,
  cost_usd: nonNegative,
  llm_tokens: count,
  pagination: v.nullable(Pagination),
  truncated: v.boolean(),
  truncation_hint: v.nullable(v.string()),
  run_dir: v.nullable(v.string()),
  outcome: Outcome,
});

export const Envelope = v.strictObject({
  ok: v.boolean(),
  contract_version: v.pipe(v.number(), v.integer(), v.minValue(0)),
  tool: v.string(),
  command: v.string(),
  data: v.unknown(),
  error: v.nullable(ErrorObject),
  meta: Meta,
});
export type Envelope = v.InferOutput<typeof Envelope>;

const FlagDoc = v.looseObject({
  name: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]*$/, "flag names are kebab-case")),
  type: v.picklist(["string", "number", "integer", "boolean", "enum", "array"]),
  required: v.boolean(),
  enum: v.optional(v.array(v.string())),
  minimum: v.optional(v.number()),
  maximum: v.optional(v.number()),
});

const EnvDoc = v.looseObject({
  name: v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]*$/)),
  scope: v.picklist(["read", "write", "config"]),
  required: v.optional(v.boolean()),
  description: v.string(),
});

export const CommandDoc = v.looseObject({
  name: v.string(),
  resource: v.optional(v.nullable(v.string())),
  verb: v.string(),
  tier: v.picklist([1, 2]),
  rw: v.picklist(["read", "write"]),
  summary: v.optional(v.string()),
  flags: v.array(FlagDoc),
  result_schema: v.string(),
  input_schema: v.record(v.string(), v.unknown()),
  output_schema: v.record(v.string(), v.unknown()),
  errors: v.array(v.string()),
  env: v.array(EnvDoc),
  pagination: v.nullable(v.looseObject({ default_limit: v.pipe(v.number(), v.integer(), v.minValue(1)), max_limit: v.pipe(v.number(), v.integer(), v.minValue(1)) })),
});
export type CommandDoc = v.InferOutput<typeof CommandDoc>;

export const DescribeDoc = v.looseObject({
  contract_version: v.pipe(v.number(), v.integer(), v.minValue(0)),
  tool: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]*$/)),
  version: v.string(),
  commands: v.pipe(v.array(CommandDoc), v.minLength(1)),
  universal_flags: v.array(v.looseObject({ name: v.string() })),
  env: v.optional(v.array(EnvDoc)),
  error_codes: v.record(v.string(), v.looseObject({ exit: v.number(), retryable: v.boolean() })),
});
export type DescribeDoc = v.InferOutput<typeof DescribeDoc>;

/** Issues as one line each: `path: message`. */
export function explain(issues: readonly v.BaseIssue<unknown>[]): string[] {
  return issues.slice(0, 5).map((i) => `${v.getDotPath(i) ?? "(root)"}: ${i.message}`);
}
