/**
 * `--params FILE|-` (from the declared-tools binding): the command's flags as
 * one JSON object, so an agent host passes structured input with no shell
 * quoting anywhere on the path. Keys are the flag names; values are JSON
 * typed and validated by the same schema as argv.
 */
import { resolve } from "node:path";
import type { RawFlags } from "./argv.ts";
import { KitError } from "../output/index.ts";
import { UNIVERSAL_FLAGS } from "./flags.ts";
import { nearest } from "./suggest.ts";

/** The universal flags a params document may carry: values, not output switches. */
const PARAM_UNIVERSALS = new Map(UNIVERSAL_FLAGS.filter((f) => f.inParams).map((f) => [f.name, f]));

/** Deeper than any flag value needs; a deeper document would only exhaust the stack of whatever walks it. */
const MAX_DEPTH = 32;

/** How deep a JSON value nests, walked without recursion; stops counting past ten times the limit. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    deepest = Math.max(deepest, d + 1);
    if (deepest > 10 * MAX_DEPTH) break;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return deepest;
}

/**
 * Where the first NUL byte is, in a key or a string value (a path like
 * `messages[0].content`), or null. No command line can carry one, so the
 * params door takes no value the argv door could not be given.
 */
function nulAt(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === "string" && v.includes("\0")) return at || "(the document)";
    if (v === null || typeof v !== "object") continue;
    for (const [k, child] of Object.entries(v)) {
      const path = Array.isArray(v) ? `${at}[${k}]` : at ? `${at}.${k}` : k;
      if (k.includes("\0")) return path;
      stack.push([child, path]);
    }
  }
  return null;
}

export async function readParamsDocument(
  source: string,
  cwd: string,
  readStdin: () => Promise<string>,
): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = source === "-" ? await readStdin() : await Bun.file(resolve(cwd, source)).text();
  } catch (e) {
    throw new KitError("INVALID_PARAMS", `--params ${source} cannot be read: ${(e as Error).message}`, {
      hint: "give a JSON file's path, or '-' and the JSON object on stdin",
    });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new KitError(
      "INVALID_PARAMS",
      `--params ${source === "-" ? "(stdin)" : source} is not valid JSON: ${(e as Error).message}`,
      {
        hint: 'write one JSON object whose keys are flag names, e.g. {"severity":"high"}',
      },
    );
  }
  const depth = depthOf(doc);
  if (depth > MAX_DEPTH)
    throw new KitError(
      "INVALID_PARAMS",
      `--params is nested ${depth > 10 * MAX_DEPTH ? `more than ${10 * MAX_DEPTH}` : depth} levels deep; at most ${MAX_DEPTH} are accepted`,
      {
        got: depth,
        allowed: { max: MAX_DEPTH },
        hint: "flag values are strings, numbers, booleans or short lists: flatten the document",
      },
    );
  if (doc === null || typeof doc !== "object" || Array.isArray(doc))
    throw new KitError(
      "INVALID_PARAMS",
      `--params must hold a JSON object, not ${Array.isArray(doc) ? "an array" : doc === null ? "null" : typeof doc}`,
      {
        hint: 'write one JSON object whose keys are flag names, e.g. {"severity":"high"}',
      },
    );
  const nul = nulAt(doc);
  if (nul !== null)
    throw new KitError(
      "INVALID_VALUE",
      `--params '${JSON.stringify(nul).slice(1, -1).slice(0, 200)}' holds a NUL byte, which no value may hold`,
      {
        got: nul,
        hint: "remove the NUL (\\u0000) from the value: a command line cannot carry one either",
      },
    );
  return doc as Record<string, unknown>;
}

/**
 * Splits a params document into command flags and universal values, refusing
 * unknown keys and anything also given on the command line.
 */
export function splitParams(
  doc: Record<string, unknown>,
  commandFlags: readonly string[],
  argv: RawFlags,
): { flags: Record<string, unknown>; universal: RawFlags } {
  const flags: Record<string, unknown> = {};
  const universal: RawFlags = {};
  const known = [...commandFlags, ...PARAM_UNIVERSALS.keys()];
  for (const [key, value] of Object.entries(doc)) {
    // Own keys only: a document's `constructor` or `__proto__` is an unknown key, not a flag inherited from Object.
    if (Object.hasOwn(argv, key))
      throw new KitError("CONFLICTING_FLAGS", `'${key}' is given both in --params and as --${key}; give it once`, {
        got: key,
      });
    if (commandFlags.includes(key)) {
      flags[key] = value;
      continue;
    }
    const u = PARAM_UNIVERSALS.get(key);
    if (!u) {
      const guess = nearest(key, known);
      throw new KitError("UNKNOWN_FLAG", `--params has an unknown key '${key}'; valid keys: ${known.join(", ")}`, {
        allowed: known,
        got: key,
        hint: guess ? `did you mean '${guess}'?` : "keys are the command's flag names without the dashes",
      });
    }
    const expected = u.kind === "boolean" ? "boolean" : u.kind === "integer" ? "number" : "string";
    if (typeof value !== expected || (u.kind === "integer" && !Number.isInteger(value)))
      throw new KitError(
        "INVALID_VALUE",
        `--params '${key}' must be ${u.kind === "integer" ? "an integer" : `a ${expected}`} (got: ${JSON.stringify(value)})`,
        { got: value },
      );
    universal[key] = typeof value === "number" ? String(value) : (value as string | boolean);
  }
  const mixed = commandFlags.filter((f) => Object.hasOwn(argv, f));
  if (mixed.length > 0)
    throw new KitError(
      "CONFLICTING_FLAGS",
      `--params cannot be combined with command flags on the command line (${mixed.map((f) => `--${f}`).join(", ")})`,
      {
        got: mixed.map((f) => `--${f}`),
        hint: "put every flag in the params document, or drop --params",
      },
    );
  return { flags, universal };
}
