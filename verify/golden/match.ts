/**
 * Snapshot matching in the spirit of trycmd/snapbox:
 * - `[..]` inside a string matches any run of characters on that line;
 * - a line that is exactly `...` matches any number of lines (text);
 * - the JSON value `"..."` matches any value; as an array element it
 *   matches any number of elements; as an object key (`"...": "..."`) it
 *   allows keys the snapshot does not list;
 * - named tokens such as `[RUN_DIR]` are literal: the actual output has
 *   them substituted before it is compared.
 */

export const WILDCARD = "...";
const INLINE = "[..]";

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One line of expected text against one line of actual text. */
export function lineMatches(expected: string, actual: string): boolean {
  if (!expected.includes(INLINE)) return expected === actual;
  return new RegExp(`^${expected.split(INLINE).map(escapeRegExp).join(".*?")}$`, "s").test(actual);
}

/** Text with `...` lines; returns the first differing expected line, or null. */
export function textMismatch(expected: string, actual: string): string | null {
  const exp = expected.split("\n");
  const act = actual.split("\n");
  const go = (i: number, j: number): boolean => {
    if (i === exp.length) return j === act.length;
    if (exp[i] === WILDCARD) {
      for (let k = j; k <= act.length; k++) if (go(i + 1, k)) return true;
      return false;
    }
    return j < act.length && lineMatches(exp[i]!, act[j]!) && go(i + 1, j + 1);
  };
  if (go(0, 0)) return null;
  const firstBad = exp.findIndex((line, i) => line !== WILDCARD && !lineMatches(line, act[i] ?? ""));
  return firstBad === -1
    ? "the number of lines differs"
    : `line ${firstBad + 1}: expected ${JSON.stringify(exp[firstBad])}, got ${JSON.stringify(act[firstBad] ?? "(end)")}`;
}

/** JSON value against JSON value; returns the path of the first difference, or null. */
export function jsonMismatch(expected: unknown, actual: unknown, path = "$"): string | null {
  if (expected === WILDCARD) return null;
  if (typeof expected === "string") {
    if (typeof actual !== "string") return `${path}: expected a string, got ${JSON.stringify(actual)}`;
    return lineMatches(expected, actual)
      ? null
      : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${JSON.stringify(actual)?.slice(0, 80)}`;
    const go = (i: number, j: number): boolean => {
      if (i === expected.length) return j === actual.length;
      if (expected[i] === WILDCARD) {
        for (let k = j; k <= actual.length; k++) if (go(i + 1, k)) return true;
        return false;
      }
      return j < actual.length && jsonMismatch(expected[i], actual[j]) === null && go(i + 1, j + 1);
    };
    if (go(0, 0)) return null;
    if (!expected.includes(WILDCARD) && expected.length !== actual.length)
      return `${path}: expected ${expected.length} items, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      if (expected[i] === WILDCARD) break;
      const inner = jsonMismatch(expected[i], actual[i], `${path}[${i}]`);
      if (inner) return inner;
    }
    return `${path}: the items differ`;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual))
      return `${path}: expected an object, got ${JSON.stringify(actual)?.slice(0, 80)}`;
    const exp = expected as Record<string, unknown>;
    const act = actual as Record<string, unknown>;
    const open = WILDCARD in exp;
    for (const key of Object.keys(exp)) {
      if (key === WILDCARD) continue;
      if (!(key in act)) return `${path}.${key}: missing`;
      const inner = jsonMismatch(exp[key], act[key], `${path}.${key}`);
      if (inner) return inner;
    }
    if (!open) {
      const extra = Object.keys(act).filter((k) => !(k in exp));
      if (extra.length) return `${path}: unexpected key(s) ${extra.join(", ")}`;
    }
    return null;
  }
  return Object.is(expected, actual)
    ? null
    : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}
