/**
 * The verifier's own schemas of what a tool prints (contract §2, §4, §9 and
 * the SPEC's extensions), in valibot, and the describe document in verify's
 * own terms (read by describe-doc.ts): nothing here comes from the kit, so a
 * kit bug cannot describe itself as correct.
 */
import * as v from "valibot";

const nonNegative = v.pipe(v.number(), v.minValue(0));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const ErrorObject = v.looseObject({
  code: v.string(),
  message: v.pipe(
    v.string(),
    v.minLength(1),
    v.check((m) => !/[\r\n]/.test(m), "message must be one line"),
  ),
  retryable: v.boolean(),
  hint: v.optional(v.string()),
  allowed: v.optional(v.unknown()),
  got: v.optional(v.unknown()),
  detail: v.optional(v.record(v.string(), v.unknown())),
});

export const Pagination = v.looseObject({
  limit: v.pipe(v.number(), v.integer(), v.minValue(1)),
  returned: count,
  total: v.nullish(count, null),
  next_cursor: v.nullish(v.pipe(v.string(), v.minLength(1)), null),
});

/**
 * meta (contract §2, §11): a key whose value would be null may be left out
 * (docs/contract-notes.md, 5); the numbers the harness sums, truncated and the
 * outcome sub-object are always there.
 */
export const Outcome = v.looseObject({
  unit: v.picklist(["usd", "rank", "pct", "count", "ms"]),
  projected: v.nullish(v.number(), null),
  realized: v.nullish(v.number(), null),
  cost_usd: nonNegative,
  confidence: v.nullish(v.pipe(v.number(), v.minValue(0), v.maxValue(1)), null),
});

export const Meta = v.looseObject({
  schema: v.nullish(v.string(), null),
  duration_ms: nonNegative,
  cost_usd: nonNegative,
  llm_tokens: count,
  pagination: v.nullish(Pagination, null),
  truncated: v.boolean(),
  truncation_hint: v.nullish(v.string(), null),
  run_dir: v.nullish(v.string(), null),
  outcome: Outcome,
  /** What a caller would run next (a kit addition; where present, command lines). */
  next: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
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

export const EnvDoc = v.looseObject({
  name: v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]*$/)),
  scope: v.picklist(["read", "write", "config"]),
  required: v.optional(v.boolean()),
  description: v.string(),
});
export type EnvDoc = v.InferOutput<typeof EnvDoc>;

export type FlagType = "string" | "integer" | "number" | "boolean" | "enum" | "array";

export interface FlagDoc {
  /** Without dashes. */
  readonly name: string;
  /** Normalized; null when the tool used a type word verify does not know (`rawType` says which). */
  readonly type: FlagType | null;
  readonly rawType: string;
  readonly required: boolean;
  readonly enum?: string[];
  readonly minimum?: number;
  readonly maximum?: number;
  /** A required flag's value the tool's own usage error taught (its `allowed`), where --describe lists none: see taught.ts. */
  taught?: string;
}

/** One command as verify works with it: the contract's fields, and the kit's where the document has them (else null). */
export interface CommandDoc {
  readonly name: string;
  readonly resource: string | null;
  readonly verb: string;
  readonly tier: 1 | 2;
  readonly rw: "read" | "write";
  readonly flags: FlagDoc[];
  readonly result_schema: string;
  /** Whether the command returns a list: it declares pagination, or its verb is `list`. */
  readonly isList: boolean;
  readonly input_schema: Record<string, unknown> | null;
  readonly output_schema: Record<string, unknown> | null;
  readonly errors: string[] | null;
  readonly env: EnvDoc[];
  readonly pagination: { default_limit: number; max_limit: number } | null;
  /** The command's entry as the tool printed it, for per-command --describe comparisons. */
  readonly raw: Record<string, unknown>;
  /** Its examples (kit extension `examples`), null when the document has none or they are malformed. */
  readonly examples: ExampleDoc[] | null;
}

/** One documented example: argv after the command words, and the line it is printed as, where given. */
export interface ExampleDoc {
  readonly argv: string[];
  readonly summary: string | null;
  readonly command_line: string | null;
}

export interface DescribeDoc {
  readonly contract_version: number;
  readonly tool: string;
  readonly version: string | null;
  readonly commands: CommandDoc[];
  readonly universal_flags: string[] | null;
  readonly env: EnvDoc[];
  readonly error_codes: Record<string, { exit: number; retryable: boolean }> | null;
  /** The kit extensions the tool claims (its --describe's `extensions`). */
  readonly extensions: string[];
  readonly documents: Record<string, unknown> | null;
  /** Other doors the tool opens (`"mcp": "seo --mcp [--profile …]"`): how to start each. */
  readonly bindings: Record<string, unknown> | null;
  /** The document as the tool printed it, for what only a plain tool's additive fields say. */
  readonly raw: Record<string, unknown>;
}

/** Issues as one line each, all of them: `$.path: message (expected …, got …)`. */
export function explain(issues: readonly v.BaseIssue<unknown>[]): string[] {
  return issues.map((i) => `${jsonPath(v.getDotPath(i))}: ${i.message}`);
}

/** valibot's dot path as the one path syntax verify prints and reads: `$.commands[0].flags[1].name`. */
export const jsonPath = (dot: string | null): string =>
  dot
    ? `$${dot
        .split(".")
        .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
        .join("")}`
    : "$";
