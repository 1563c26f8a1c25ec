/**
 * From raw flag values to the typed object `run` receives: argv strings are
 * converted by the flag's declared kind and checked against its spec, then
 * the zod schema has the last word. Every rejection is mapped to a teaching error (contract §4): enums
 * list their values, ranges give their bounds, a missing flag names itself.
 */
import type { FlagsSchema } from "./define.ts";
import { KitError } from "./errors.ts";
import { unwrap, type FlagSpec } from "./flags.ts";

type Source = "argv" | "params";

/** argv gives strings; --params gives JSON values, taken as they are. */
function convert(spec: FlagSpec, raw: unknown, source: Source): unknown {
  if (source === "params") return raw;
  const one = (kind: FlagSpec["kind"], v: string): unknown => {
    if (kind === "number" || kind === "integer") {
      const n = v.trim() === "" ? Number.NaN : Number(v);
      if (Number.isNaN(n))
        throw new KitError("INVALID_VALUE", `--${spec.name} must be ${kind === "integer" ? "an integer" : "a number"} (got: '${v}')`, {
          got: v,
          hint: `write --${spec.name}=${kind === "integer" ? "10" : "1.5"}`,
        });
      return n;
    }
    return v;
  };
  if (spec.kind === "array") return (raw as string[]).map((v) => one(spec.itemKind ?? "string", v));
  if (spec.kind === "boolean") return raw;
  return one(spec.kind, raw as string);
}

const describeKind = (spec: FlagSpec): string =>
  spec.kind === "array" ? `a list of ${spec.itemKind ?? "string"} values` : spec.kind === "integer" ? "an integer" : `a ${spec.kind}`;

const show = (v: unknown): string => (typeof v === "string" ? `'${v}'` : JSON.stringify(v) ?? String(v));

/** Bounds of a number flag, read from its JSON Schema only when a range is violated (the generator is loaded only then). */
async function boundsOf(schema: FlagsSchema, key: string): Promise<{ min?: number; max?: number }> {
  const field = (schema.shape as Record<string, unknown>)[key];
  if (!field) return {};
  const { toJSONSchema } = await import("zod/v4/core");
  const js = toJSONSchema(unwrap(field as never).core as never, { unrepresentable: "any" }) as Record<string, unknown>;
  const min = (js.minimum ?? (typeof js.exclusiveMinimum === "number" ? js.exclusiveMinimum + 1 : undefined)) as number | undefined;
  const max = (js.maximum ?? (typeof js.exclusiveMaximum === "number" ? js.exclusiveMaximum - 1 : undefined)) as number | undefined;
  return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
}

const missing = (spec: FlagSpec): KitError =>
  new KitError("MISSING_FLAG", `--${spec.name} is required`, {
    hint: spec.enumValues ? `add --${spec.name}=${spec.enumValues[0]} (one of: ${spec.enumValues.join(", ")})` : `add --${spec.name}=VALUE`,
  });

const notInEnum = (spec: FlagSpec, got: unknown): KitError => {
  const allowed = [...spec.enumValues!];
  return new KitError("INVALID_ENUM", `--${spec.name} must be one of: ${allowed.join(", ")} (got: ${show(got)})`, { allowed, got });
};

/**
 * Raw values to the input the schema parses, refusing what the flag specs
 * alone can tell (a wrong number, a value outside an enum, a required flag
 * absent) before any command is loaded.
 */
export function convertFlags(specs: readonly FlagSpec[], raw: Record<string, unknown>, source: Source): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const spec of specs) {
    if (spec.name in raw) {
      const value = convert(spec, raw[spec.name], source);
      if (spec.enumValues && !spec.enumValues.includes(value as string)) throw notInEnum(spec, value);
      input[spec.key] = value;
    }
    // An absent switch is false unless the schema gives its own default.
    else if (spec.kind === "boolean" && !spec.defaulted) input[spec.key] = false;
    else if (spec.required) throw missing(spec);
  }
  return input;
}

/** The schema has the last word (ranges, formats, refinements); its rejection becomes a teaching error. */
export async function validateFlags(schema: FlagsSchema, specs: readonly FlagSpec[], input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = schema.safeParse(input);
  if (result.success) return result.data as Record<string, unknown>;

  const issue = result.error.issues[0]!;
  const key = String(issue.path[0] ?? "");
  const spec = specs.find((s) => s.key === key);
  const flag = spec ? `--${spec.name}` : "the flags";
  const got = key in input ? input[key] : undefined;

  if (spec && got === undefined) throw missing(spec);
  if (issue.code === "invalid_value" && spec?.enumValues) throw notInEnum(spec, got);
  if ((issue.code === "too_small" || issue.code === "too_big") && spec && (spec.kind === "integer" || spec.kind === "number")) {
    const allowed = await boundsOf(schema, key);
    const range = `${allowed.min ?? "-∞"}..${allowed.max ?? "∞"}`;
    throw new KitError("OUT_OF_RANGE", `${flag} must be within ${range} (got: ${show(got)})`, { allowed, got });
  }
  if (issue.code === "invalid_type" && spec)
    throw new KitError("INVALID_VALUE", `${flag} must be ${describeKind(spec)} (got: ${show(got)})`, { got });
  const why = issue.code === "invalid_format" ? `must be a valid ${(issue as { format?: string }).format ?? "value"}` : issue.message && issue.message !== "Invalid input" ? issue.message : "is not valid";
  throw new KitError("INVALID_VALUE", `${flag} ${why} (got: ${show(got)})`, { got });
}
