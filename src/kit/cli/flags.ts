/**
 * Flags: the universal set every command accepts (contract §3 plus the SPEC's
 * extensions), as the stages read it off the table, and the shape of a
 * command's own flags as the compile step reads them off the flags' JSON
 * Schema.
 */
import { UNIVERSAL_FLAGS, type UniversalFlag, type UniversalRow } from "./universal-flags.ts";

export { UNIVERSAL_FLAGS, type UniversalFlag } from "./universal-flags.ts";

export type FlagKind = "string" | "number" | "integer" | "boolean" | "enum" | "array";

export interface FlagSpec {
  /** The key as declared (camelCase) and in the parsed flags `run` receives. */
  readonly key: string;
  /** The flag as written on the command line and in --params: kebab-case. */
  readonly name: string;
  readonly kind: FlagKind;
  readonly required: boolean;
  /** The schema supplies a value when the flag is absent. */
  readonly defaulted: boolean;
  readonly enumValues?: readonly string[];
  /** A repeatable flag's values, each of which must be one of these. */
  readonly itemEnumValues?: readonly string[];
  /** For arrays: the kind of each element. */
  readonly itemKind?: FlagKind;
}

/**
 * The universal switches and values as the stages read them, whatever door
 * they came through (argv or --params): derived from the table, a switch a
 * boolean, a value its text until its stage parses it (--limit by the list's
 * bounds).
 */
export type Universal = { [R in UniversalRow as R extends { kind: "boolean" } ? R["key"] : never]: boolean } & {
  [R in UniversalRow as R extends { kind: "boolean" } ? never : R["key"]]?: string;
};

/** The flags read off argv before it is parsed. */
export type EarlyUniversal = { [R in UniversalRow as R extends { early: true } ? R["key"] : never]: boolean };

/** The universal values a command's context carries (`ctx.dryRun`, `ctx.force`, `ctx.wait`). */
export type ContextUniversal = {
  readonly [R in UniversalRow as R extends { context: true } ? R["key"] : never]: Universal[R["key"]];
};

/** The universal flags in parsed flags (argv's, or merged with a --params document's), by the table. */
export function universalOf(raw: Readonly<Record<string, unknown>>): Universal {
  const u: Record<string, unknown> = {};
  for (const f of UNIVERSAL_FLAGS) {
    const v = raw[f.name];
    if (f.kind === "boolean") u[f.key] = u[f.key] === true || v === true;
    else if (typeof v === "string") u[f.key] = v;
  }
  return u as Universal;
}

/**
 * The early flags, read off argv before it is parsed (a parse failure is
 * still answered in the encoding asked for). Only whole tokens count.
 */
export function earlyUniversal(argv: readonly string[]): EarlyUniversal {
  const has = (f: UniversalFlag) => argv.includes(`--${f.name}`) || (f.alias !== undefined && argv.includes(f.alias));
  const u: Record<string, boolean> = {};
  for (const f of UNIVERSAL_FLAGS) if (f.early) u[f.key] = has(f);
  return u as EarlyUniversal;
}

/** The values the table marks for the context, out of the parsed universal flags. */
export function contextUniversal(u: Universal): ContextUniversal {
  const values = u as unknown as Readonly<Record<string, unknown>>;
  return Object.fromEntries(
    UNIVERSAL_FLAGS.filter((f) => f.context).map((f) => [f.key, values[f.key]]),
  ) as ContextUniversal;
}

export const UNIVERSAL_FLAG_NAMES: ReadonlySet<string> = new Set(UNIVERSAL_FLAGS.map((f) => f.name));

export const kebab = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
