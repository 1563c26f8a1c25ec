/**
 * `--fields a,b.c` (contract §3): projects `data` to the named paths and
 * never touches the envelope around it. Paths are checked against the
 * command's result schema (as the tool's index lists them, from the compile step) before anything runs; arrays are projected
 * element by element, so `items.url` keeps the url of every item.
 */
import { KitError } from "../output/index.ts";
import { nearest } from "./suggest.ts";

/** The paths `--fields` names, each checked against `valid` (the result's paths, from the tool's index). */
export function parseFields(spec: string, valid: readonly string[]): string[] {
  const wanted = spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (wanted.length === 0)
    throw new KitError("INVALID_FIELDS", "--fields is empty; name at least one path", { got: spec });
  for (const path of wanted) {
    if (!valid.includes(path)) {
      const guess = nearest(path, valid);
      throw new KitError(
        "INVALID_FIELDS",
        `--fields: '${path}' is not in the result; valid paths: ${valid.join(", ")}`,
        {
          allowed: [...valid],
          got: path,
          ...(guess ? { hint: `did you mean ${guess}?` } : {}),
        },
      );
    }
  }
  return wanted;
}

type Tree = { [key: string]: Tree | true };

export function project(data: unknown, paths: readonly string[]): unknown {
  const tree: Tree = Object.create(null);
  for (const path of paths) {
    let node = tree;
    const parts = path.split(".");
    for (const [i, part] of parts.entries()) {
      if (i === parts.length - 1) node[part] = true;
      else if (node[part] === true)
        break; // the whole parent is already kept
      else node = (node[part] ??= Object.create(null)) as Tree;
    }
  }
  const pick = (value: unknown, t: Tree): unknown => {
    if (Array.isArray(value)) return value.map((v) => pick(v, t));
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, sub] of Object.entries(t)) {
      if (!Object.hasOwn(value, key)) continue;
      const v = (value as Record<string, unknown>)[key];
      out[key] = sub === true ? v : pick(v, sub);
    }
    return out;
  };
  return pick(data, tree);
}
