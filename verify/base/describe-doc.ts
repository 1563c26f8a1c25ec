/**
 * --describe as the contract shapes it (§9), the kit's fields where a tool
 * has them (extension describe-schema), read into verify's own terms.
 */
import * as v from "valibot";
import {
  type CommandDoc,
  type DescribeDoc,
  EnvDoc,
  type ExampleDoc,
  explain,
  type FlagDoc,
  type FlagType,
} from "./schemas.ts";

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

const ErrorCodes = v.record(
  v.pipe(v.string(), v.minLength(1)),
  v.looseObject({ exit: v.pipe(v.number(), v.integer()), retryable: v.optional(v.boolean()) }),
);

/**
 * A tool's own `error_codes` (code → { exit }), read on their own: a tool
 * that publishes its codes' classes is held to them even where the rest of
 * the kit's describe fields are missing or malformed.
 */
function errorCodesOf(raw: unknown): Record<string, { exit: number; retryable: boolean }> | null {
  const parsed = v.safeParse(ErrorCodes, raw);
  if (!parsed.success) return null;
  return Object.fromEntries(
    Object.entries(parsed.output).map(([code, e]) => [code, { exit: e.exit, retryable: e.retryable ?? false }]),
  );
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
      error_codes: k?.error_codes ?? errorCodesOf(r.error_codes),
      extensions: Array.isArray(r.extensions) ? r.extensions.map(String) : [],
      documents: r.documents && typeof r.documents === "object" ? (r.documents as Record<string, unknown>) : null,
      bindings: r.bindings && typeof r.bindings === "object" ? (r.bindings as Record<string, unknown>) : null,
      raw: r,
    },
    kitIssues: kit.success ? [] : explain(kit.issues),
  };
}
