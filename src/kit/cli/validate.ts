/**
 * From raw flag values to the typed object `run` receives: argv strings are
 * converted by the flag's declared kind and checked against its spec, then
 * the validator the compile step made of the schema has the last word
 * (checks.ts). Every rejection is mapped to a teaching error
 * (contract §4): enums list their values, ranges give their bounds, a
 * missing flag names itself.
 */
import { KitError } from "../output/index.ts";
import type { FlagSpec } from "./flags.ts";

type Source = "argv" | "params";

/** argv gives strings; --params gives JSON values, taken as they are. */
function convert(spec: FlagSpec, raw: unknown, source: Source): unknown {
  if (source === "params") return raw;
  const one = (kind: FlagSpec["kind"], v: string): unknown => {
    if (kind === "number" || kind === "integer") {
      const n = v.trim() === "" ? Number.NaN : Number(v);
      if (Number.isNaN(n))
        throw new KitError(
          "INVALID_VALUE",
          `--${spec.name} must be ${kind === "integer" ? "an integer" : "a number"} (got: '${v}')`,
          {
            got: v,
            hint: `write --${spec.name}=${kind === "integer" ? "10" : "1.5"}`,
          },
        );
      return n;
    }
    return v;
  };
  if (spec.kind === "array") return (raw as string[]).map((v) => one(spec.itemKind ?? "string", v));
  if (spec.kind === "boolean") return raw;
  return one(spec.kind, raw as string);
}

const describeKind = (spec: FlagSpec): string =>
  spec.kind === "array"
    ? `a list of ${spec.itemKind ?? "string"} values`
    : spec.kind === "integer"
      ? "an integer"
      : `a ${spec.kind}`;

const show = (v: unknown): string => (typeof v === "string" ? `'${v}'` : (JSON.stringify(v) ?? String(v)));

export type Bounds = { min?: number; max?: number };

const missing = (spec: FlagSpec): KitError =>
  new KitError("MISSING_FLAG", `--${spec.name} is required`, {
    hint: spec.enumValues
      ? `add --${spec.name}=${spec.enumValues[0]} (one of: ${spec.enumValues.join(", ")})`
      : `add --${spec.name}=VALUE`,
  });

const notInEnum = (spec: FlagSpec, got: unknown): KitError => {
  const allowed = [...spec.enumValues!];
  return new KitError("INVALID_ENUM", `--${spec.name} must be one of: ${allowed.join(", ")} (got: ${show(got)})`, {
    allowed,
    got,
  });
};

/**
 * Raw values to the input the schema parses, refusing what the flag specs
 * alone can tell (a wrong number, a value outside an enum, a required flag
 * absent) before any command is loaded.
 */
export function convertFlags(
  specs: readonly FlagSpec[],
  raw: Record<string, unknown>,
  source: Source,
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const spec of specs) {
    if (Object.hasOwn(raw, spec.name)) {
      const value = convert(spec, raw[spec.name], source);
      if (spec.enumValues && !spec.enumValues.includes(value as string)) throw notInEnum(spec, value);
      const stray =
        spec.itemEnumValues && (value as unknown[]).find((v) => !spec.itemEnumValues!.includes(v as string));
      if (stray !== undefined && stray !== false) throw notInEnum({ ...spec, enumValues: spec.itemEnumValues }, stray);
      input[spec.key] = value;
    }
    // An absent switch is false unless the schema gives its own default.
    else if (spec.kind === "boolean" && !spec.defaulted) input[spec.key] = false;
    else if (spec.required) throw missing(spec);
  }
  return input;
}

/** One rejected flag, as the validator reports it; one mapping turns it into the teaching error. */
export type FlagIssue = { readonly key: string; readonly got: unknown } & (
  | { readonly kind: "missing" | "enum" | "type" }
  | { readonly kind: "range"; readonly bounds: Bounds }
  | { readonly kind: "length"; readonly min?: number; readonly max?: number; readonly unit: "characters" | "items" }
  | { readonly kind: "format"; readonly format: string }
  | { readonly kind: "pattern"; readonly pattern: string }
  | { readonly kind: "other"; readonly message?: string }
);

const count = (n: number, unit: string): string => `${n} ${n === 1 ? unit.slice(0, -1) : unit}`;

export function flagError(issue: FlagIssue, specs: readonly FlagSpec[]): KitError {
  const spec = specs.find((s) => s.key === issue.key);
  const flag = spec ? `--${spec.name}` : "the flags";
  const { got } = issue;
  if (spec && (issue.kind === "missing" || got === undefined)) return missing(spec);
  if (spec?.enumValues && issue.kind === "enum") return notInEnum(spec, got);
  if (issue.kind === "range") {
    const allowed = issue.bounds;
    return new KitError(
      "OUT_OF_RANGE",
      `${flag} must be within ${allowed.min ?? "-∞"}..${allowed.max ?? "∞"} (got: ${show(got)})`,
      { allowed, got },
    );
  }
  if (issue.kind === "type" && spec)
    return new KitError("INVALID_VALUE", `${flag} must be ${describeKind(spec)} (got: ${show(got)})`, { got });
  const why =
    issue.kind === "length"
      ? issue.min !== undefined
        ? `must have at least ${count(issue.min, issue.unit)}`
        : `must have at most ${count(issue.max!, issue.unit)}`
      : issue.kind === "format"
        ? `must be a valid ${issue.format === "uri" ? "url" : issue.format}`
        : issue.kind === "pattern"
          ? `must match /${issue.pattern}/`
          : issue.kind === "other" && issue.message && issue.message !== "Invalid input"
            ? issue.message
            : "is not valid";
  return new KitError("INVALID_VALUE", `${flag} ${why} (got: ${show(got)})`, { got });
}
