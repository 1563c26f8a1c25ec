/**
 * Flags: the universal set every command accepts (contract §3 plus the SPEC's
 * extensions), and the command flags read off a zod object schema. Reading
 * the schema's definition directly is cheap; the full JSON Schema is built
 * only when something asks to describe the tool.
 */
import type { FlagsSchema } from "../declare/define.ts";

export type FlagKind = "string" | "number" | "integer" | "boolean" | "enum" | "array";

export interface FlagSpec {
  /** The key in the zod shape (camelCase) and in the parsed flags `run` receives. */
  readonly key: string;
  /** The flag as written on the command line and in --params: kebab-case. */
  readonly name: string;
  readonly kind: FlagKind;
  readonly required: boolean;
  /** The schema supplies a value when the flag is absent. */
  readonly defaulted: boolean;
  readonly enumValues?: readonly string[];
  /** For arrays: the kind of each element. */
  readonly itemKind?: FlagKind;
}

export interface UniversalFlag {
  readonly name: string;
  readonly kind: "boolean" | "string" | "integer";
  readonly description: string;
  /** May appear in a --params document (values, not switches about output). */
  readonly inParams: boolean;
}

/** contract §3 and the SPEC's extensions; no command may redefine one. */
export const UNIVERSAL_FLAGS: readonly UniversalFlag[] = [
  { name: "json", kind: "boolean", inParams: false, description: "Print the result envelope as one JSON object (the default when stdout is not a terminal)." },
  { name: "describe", kind: "boolean", inParams: false, description: "Print the machine-readable description of the tool or command and exit 0." },
  { name: "help", kind: "boolean", inParams: false, description: "Print human help and exit 0." },
  { name: "dry-run", kind: "boolean", inParams: true, description: "Do everything except the side effect; report what would happen." },
  { name: "fields", kind: "string", inParams: true, description: "Project the result's data to these comma-separated paths, e.g. items.url,total." },
  { name: "limit", kind: "integer", inParams: true, description: "Bound a list; every list has a default, and 0 is not 'unbounded'." },
  { name: "cursor", kind: "string", inParams: true, description: "Continue a list from the next_cursor of the previous page." },
  { name: "force", kind: "boolean", inParams: true, description: "Proceed past a confirmation a human would be asked for (never past a policy gate)." },
  { name: "yes", kind: "boolean", inParams: true, description: "The same as --force." },
  { name: "no-input", kind: "boolean", inParams: false, description: "Never prompt: a prompt becomes an error instead of a wait." },
  { name: "wait", kind: "boolean", inParams: true, description: "Block until a slow external operation settles instead of returning a pending handle." },
  { name: "run-dir", kind: "string", inParams: true, description: "Folder where pipeline artifacts are read and written (default: a fresh temporary folder)." },
  { name: "params", kind: "string", inParams: false, description: "Read the command's flags as one JSON object from FILE, or from stdin with '-'." },
  { name: "toon", kind: "boolean", inParams: false, description: "Print the same envelope encoded as TOON instead of JSON." },
];

export const UNIVERSAL_FLAG_NAMES: ReadonlySet<string> = new Set(UNIVERSAL_FLAGS.map((f) => f.name));

export const kebab = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

type Def = { type: string; innerType?: Schema; defaultValue?: unknown; format?: string; entries?: Record<string, string>; element?: Schema; in?: Schema };
type Schema = { _zod: { def: Def } };

/** Peels optional/default/nullable/pipe wrappers: what the value itself is. */
export function unwrap(schema: Schema): { core: Schema; required: boolean; defaulted: boolean } {
  let s = schema;
  let required = true;
  let defaulted = false;
  for (;;) {
    const def = s._zod.def;
    if (def.type === "optional" || def.type === "default" || def.type === "prefault" || def.type === "nullable") {
      if (def.type !== "nullable") required = false;
      if (def.type === "default" || def.type === "prefault") defaulted = true;
      s = def.innerType!;
    } else if (def.type === "pipe") s = def.in!;
    else return { core: s, required, defaulted };
  }
}

function kindOf(core: Schema): { kind: FlagKind; enumValues?: string[]; itemKind?: FlagKind } {
  const def = core._zod.def;
  switch (def.type) {
    case "boolean":
      return { kind: "boolean" };
    case "number":
      return { kind: def.format === "safeint" || def.format === "int32" ? "integer" : "number" };
    case "enum":
      return { kind: "enum", enumValues: Object.values(def.entries ?? {}) };
    case "array":
      return { kind: "array", itemKind: kindOf(unwrap(def.element!).core).kind };
    default:
      return { kind: "string" };
  }
}

const cache = new WeakMap<FlagsSchema, readonly FlagSpec[]>();

/** The command's flags, in declaration order. */
export function flagSpecsOf(schema: FlagsSchema): readonly FlagSpec[] {
  const hit = cache.get(schema);
  if (hit) return hit;
  const specs = Object.entries(schema.shape as Record<string, Schema>).map(([key, field]) => {
    const { core, required, defaulted } = unwrap(field);
    const kind = kindOf(core);
    // An absent switch is false, so a boolean flag is never required.
    return { key, name: kebab(key), required: required && kind.kind !== "boolean", defaulted, ...kind };
  });
  cache.set(schema, specs);
  return specs;
}
