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

/**
 * contract §9's shape of --describe, and nothing more:
 * `{ contract_version, tool, commands: [{ name, verb, tier, rw, flags: [{ name, type, required }], result_schema }] }`.
 * Additive fields are welcome (contract "Versioning"). Where the contract is
 * open, the reasonable readings are accepted: a flag name with or without its
 * dashes, and any of the type words in FLAG_TYPES.
 */
const ContractFlag = v.looseObject({
  name: v.pipe(
    v.string(),
    v.regex(/^(--)?[a-z][a-z0-9-]*$/, "a flag name is kebab-case, with or without its leading --"),
  ),
  type: v.string(),
  required: v.boolean(),
});
const ContractCommand = v.looseObject({
  name: v.pipe(v.string(), v.minLength(1)),
  verb: v.pipe(v.string(), v.minLength(1)),
  tier: v.picklist([1, 2]),
  rw: v.picklist(["read", "write"]),
  flags: v.array(ContractFlag),
  result_schema: v.string(),
});
export const ContractDescribe = v.looseObject({
  contract_version: v.pipe(v.number(), v.integer(), v.minValue(0)),
  tool: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]*$/)),
  commands: v.pipe(v.array(ContractCommand), v.minLength(1)),
});

const EnvDoc = v.looseObject({
  name: v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]*$/)),
  scope: v.picklist(["read", "write", "config"]),
  required: v.optional(v.boolean()),
  description: v.string(),
});
type EnvDoc = v.InferOutput<typeof EnvDoc>;

/** The kit's fields of --describe (kit extension `describe-schema`): checked only where claimed, or with --strict. */
export const KitDescribe = v.looseObject({
  version: v.string(),
  universal_flags: v.array(v.looseObject({ name: v.string() })),
  env: v.optional(v.array(EnvDoc)),
  error_codes: v.record(v.string(), v.looseObject({ exit: v.number(), retryable: v.boolean() })),
  commands: v.array(
    v.looseObject({
      resource: v.optional(v.nullable(v.string())),
      input_schema: v.record(v.string(), v.unknown()),
      output_schema: v.record(v.string(), v.unknown()),
      errors: v.array(v.string()),
      env: v.array(EnvDoc),
      pagination: v.nullable(
        v.looseObject({
          default_limit: v.pipe(v.number(), v.integer(), v.minValue(1)),
          max_limit: v.pipe(v.number(), v.integer(), v.minValue(1)),
        }),
      ),
    }),
  ),
});

/** The flag type words verify understands, and the one each means. */
export const FLAG_TYPES: Readonly<Record<string, FlagType>> = {
  string: "string",
  str: "string",
  text: "string",
  path: "string",
  url: "string",
  integer: "integer",
  int: "integer",
  number: "number",
  float: "number",
  double: "number",
  boolean: "boolean",
  bool: "boolean",
  switch: "boolean",
  flag: "boolean",
  enum: "enum",
  choice: "enum",
  array: "array",
  list: "array",
  repeatable: "array",
};
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

const Example = v.looseObject({
  argv: v.array(v.string()),
  summary: v.optional(v.string()),
  command_line: v.optional(v.string()),
});

/** A command's `examples`, as verify reads them: a list of { argv, summary?, command_line? }, else null. */
function examplesOf(raw: unknown): ExampleDoc[] | null {
  const parsed = v.safeParse(v.array(Example), raw);
  if (!parsed.success) return null;
  return parsed.output.map((e) => ({ argv: e.argv, summary: e.summary ?? null, command_line: e.command_line ?? null }));
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

/** The document in verify's own terms: contract fields always, kit fields where they are all there and valid. */
export function normalizeDescribe(raw: v.InferOutput<typeof ContractDescribe>): {
  doc: DescribeDoc;
  kitIssues: string[];
} {
  const kit = v.safeParse(KitDescribe, raw);
  const k = kit.success ? kit.output : null;
  const r = raw as Record<string, unknown>;
  const commands = raw.commands.map((c, i): CommandDoc => {
    const kc = k?.commands[i] ?? null;
    const words = c.name.split(" ");
    const flags = c.flags.map((f): FlagDoc => {
      const x = f as Record<string, unknown>;
      return {
        name: f.name.replace(/^--/, ""),
        type: FLAG_TYPES[f.type.toLowerCase()] ?? null,
        rawType: f.type,
        required: f.required,
        ...(Array.isArray(x.enum) ? { enum: x.enum.map(String) } : {}),
        ...(typeof x.minimum === "number" ? { minimum: x.minimum } : {}),
        ...(typeof x.maximum === "number" ? { maximum: x.maximum } : {}),
      };
    });
    return {
      name: c.name,
      resource: kc?.resource ?? (words.length === 2 ? words[0]! : null),
      verb: c.verb,
      tier: c.tier,
      rw: c.rw,
      flags,
      result_schema: c.result_schema,
      isList: Boolean(kc?.pagination) || c.verb === "list",
      input_schema: kc?.input_schema ?? null,
      output_schema: kc?.output_schema ?? null,
      errors: kc?.errors ?? null,
      env: kc?.env ?? [],
      pagination: kc?.pagination ?? null,
      raw: c as Record<string, unknown>,
      examples: examplesOf((c as Record<string, unknown>).examples),
    };
  });
  return {
    doc: {
      contract_version: raw.contract_version,
      tool: raw.tool,
      version: typeof r.version === "string" ? r.version : null,
      commands,
      universal_flags: k ? k.universal_flags.map((u) => u.name.replace(/^--/, "")) : null,
      env: k?.env ?? [],
      error_codes: k?.error_codes ?? null,
      extensions: Array.isArray(r.extensions) ? r.extensions.map(String) : [],
      documents: r.documents && typeof r.documents === "object" ? (r.documents as Record<string, unknown>) : null,
      bindings: r.bindings && typeof r.bindings === "object" ? (r.bindings as Record<string, unknown>) : null,
      raw: r,
    },
    kitIssues: kit.success ? [] : explain(kit.issues),
  };
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
