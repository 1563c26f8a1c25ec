/**
 * What the runtime needs of a command's schemas, read off their JSON Schema:
 * each flag's kind, enum values, whether it is required or defaulted, and
 * every path `--fields` may name in the result.
 */
import { kebab, type FlagKind, type FlagSpec } from "../cli/index.ts";
import type { JsonSchema } from "./json-schema.ts";

const props = (js: JsonSchema): Record<string, JsonSchema> => (js.properties ?? {}) as Record<string, JsonSchema>;

/** A nullable value is `anyOf [value, null]`: what the value itself is. */
const core = (js: JsonSchema): JsonSchema => {
  const options = (js.anyOf ?? js.oneOf) as JsonSchema[] | undefined;
  const value = options?.filter((o) => o.type !== "null");
  return value?.length === 1 ? core(value[0]!) : js;
};

function kindOf(js: JsonSchema): {
  kind: FlagKind;
  enumValues?: string[];
  itemKind?: FlagKind;
  itemEnumValues?: string[];
} {
  const c = core(js);
  if (Array.isArray(c.enum)) return { kind: "enum", enumValues: c.enum.map(String) };
  if (c.type === "boolean" || c.type === "integer" || c.type === "number") return { kind: c.type };
  if (c.type === "array") {
    const item = kindOf((c.items ?? {}) as JsonSchema);
    return { kind: "array", itemKind: item.kind, ...(item.enumValues ? { itemEnumValues: item.enumValues } : {}) };
  }
  return { kind: "string" };
}

const SCALARS = new Set(["string", "number", "integer", "boolean"]);

/** What a flag's value is, when a command line cannot give it: an object, a list of objects or of lists. */
function structured(js: JsonSchema): string | undefined {
  const c = core(js);
  if (Array.isArray(c.enum) || SCALARS.has(c.type as string)) return undefined;
  if (c.type === "array") {
    const items = core((c.items ?? {}) as JsonSchema);
    if (items.type === "array") return "a list of lists";
    const item = structured(items);
    return item === undefined ? undefined : `a list of ${item.replace(/^an? /, "")}s`;
  }
  const options = (c.anyOf ?? c.oneOf) as JsonSchema[] | undefined;
  if (options) return options.map(structured).find((s) => s !== undefined);
  return c.type === "object" || c.properties || c.additionalProperties ? "an object" : undefined;
}

/**
 * The first flag whose value the command line cannot give (one word per value, a list by repeating
 * the flag): its kebab-case name and what it takes. The compile step refuses such a declaration.
 */
export function unparseableFlag(flags: JsonSchema): { name: string; takes: string } | undefined {
  for (const [key, p] of Object.entries(props(flags))) {
    const takes = structured(p);
    if (takes) return { name: kebab(key), takes };
  }
  return undefined;
}

/** The command's flags in declaration order, from the flags' JSON Schema (camelCase keys, as declared). */
export function flagSpecsFrom(flags: JsonSchema): FlagSpec[] {
  const required = new Set((flags.required ?? []) as string[]);
  return Object.entries(props(flags)).map(([key, p]) => {
    const kind = kindOf(p);
    // An absent switch is false, so a boolean flag is never required.
    return {
      key,
      name: kebab(key),
      required: required.has(key) && kind.kind !== "boolean",
      defaulted: "default" in p,
      ...kind,
    };
  });
}

/** The flags' JSON Schema with the kebab-case names the command line and --params use: what --describe publishes. */
export function kebabFlagsSchema(flags: JsonSchema): JsonSchema {
  const js: JsonSchema = structuredClone(flags);
  js.properties = Object.fromEntries(Object.entries(props(flags)).map(([k, v]) => [kebab(k), v]));
  if (Array.isArray(js.required)) js.required = (js.required as string[]).map(kebab);
  js.additionalProperties = false;
  return js;
}

const MAX_DEPTH = 6;

/** Every addressable path in a result's JSON Schema, arrays and unions looked through. */
export function fieldPathsFrom(result: JsonSchema): string[] {
  const defs = (result.$defs ?? {}) as Record<string, JsonSchema>;
  const out: string[] = [];
  const walk = (node: JsonSchema, prefix: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (typeof node.$ref === "string" && node.$ref.startsWith("#/$defs/"))
      return walk(defs[node.$ref.slice(8)] ?? {}, prefix, depth);
    for (const option of [...((node.anyOf ?? []) as JsonSchema[]), ...((node.oneOf ?? []) as JsonSchema[])])
      walk(option, prefix, depth);
    if (node.type === "array" || node.items) return walk((node.items ?? {}) as JsonSchema, prefix, depth);
    for (const [key, child] of Object.entries(props(node))) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (!out.includes(path)) out.push(path);
      walk(child, path, depth + 1);
    }
  };
  walk(result, "", 0);
  return out;
}
