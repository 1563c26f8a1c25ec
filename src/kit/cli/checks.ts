/**
 * How a command's flags and result are checked: by the validators the compile
 * step generates from their JSON Schema, the same in a binary and in-process.
 * A rejected flag becomes one `FlagIssue`, and so one teaching error.
 */
import type { FlagSpec } from "./flags.ts";
import { flagError, type Bounds, type FlagIssue } from "./validate.ts";

export type { Bounds };
export type ResultCheck = { ok: true; data: unknown } | { ok: false; path: string; message: string };

export interface Checks {
  /** The flags `run` receives, defaults applied; a rejection is thrown as a teaching error. */
  flags(input: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The data the envelope carries, or where and why the command's result breaks its schema. */
  result(data: unknown): ResultCheck;
}

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}
type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

/** What the compile step makes of each command's schemas. */
export interface CompiledValidators {
  readonly flags: Validate;
  readonly result: Validate;
  readonly bounds: Readonly<Record<string, Bounds>>;
}

/** A JSON Pointer (ajv's instancePath) as its keys. */
export const pathOf = (instancePath: string): string[] =>
  instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));

function issueOf(e: AjvError, input: Record<string, unknown>, v: CompiledValidators): FlagIssue {
  const key = e.keyword === "required" ? String(e.params.missingProperty) : (pathOf(e.instancePath)[0] ?? "");
  const got = input[key];
  const limit = Number(e.params.limit);
  switch (e.keyword) {
    case "required":
      return { key, got: undefined, kind: "missing" };
    case "enum":
      return { key, got, kind: "enum" };
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return { key, got, kind: "range", bounds: { ...v.bounds[key] } };
    case "type":
      return { key, got, kind: "type" };
    case "minLength":
    case "minItems":
      return { key, got, kind: "length", min: limit, unit: e.keyword === "minLength" ? "characters" : "items" };
    case "maxLength":
    case "maxItems":
      return { key, got, kind: "length", max: limit, unit: e.keyword === "maxLength" ? "characters" : "items" };
    case "format":
      return { key, got, kind: "format", format: String(e.params.format) };
    case "pattern":
      return { key, got, kind: "pattern", pattern: String(e.params.pattern) };
    default:
      return { key, got, kind: "other", message: e.message };
  }
}

/** The flags `run` receives, defaults applied, or the teaching error of the first rejection. */
export function checkedFlags(
  v: CompiledValidators,
  specs: readonly FlagSpec[],
  input: Record<string, unknown>,
): Record<string, unknown> {
  const data = { ...input };
  if (v.flags(data)) return data;
  throw flagError(issueOf(v.flags.errors![0]!, input, v), specs);
}

export function compiledChecks(v: CompiledValidators, specs: readonly FlagSpec[]): Checks {
  return {
    async flags(input) {
      return checkedFlags(v, specs, input);
    },
    result(data) {
      if (v.result(data)) return { ok: true, data };
      const e = v.result.errors![0]!;
      return { ok: false, path: pathOf(e.instancePath).join("."), message: e.message ?? e.keyword };
    },
  };
}
