/**
 * Golden cases: one JSON file per recorded invocation under
 * `<golden dir>/<tool>/<name>.json`, holding what to run (argv, env, stdin,
 * files to lay out, setup steps) and, once recorded, what it printed
 * (`expect`: exit code and stdout). Volatile values are replaced by named
 * tokens before recording and before comparing, by rules the case states.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as v from "valibot";

const Step = v.strictObject({
  /** A sibling binary beside the tool under test (e.g. `gate`), instead of the tool itself. */
  tool: v.optional(v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]*$/))),
  argv: v.array(v.string()),
  stdin: v.optional(v.string()),
  env: v.optional(v.record(v.string(), v.string())),
});

const compiles = (pattern: string): boolean => {
  try {
    new RegExp(pattern, "g");
    return true;
  } catch {
    return false;
  }
};

export const GoldenCase = v.strictObject({
  description: v.optional(v.string()),
  /** Laid out under [CASE_DIR]: inline text, or a copy of a path relative to the project root. */
  files: v.optional(v.record(v.string(), v.union([v.string(), v.strictObject({ copy: v.string() })]))),
  /** Folders under [CASE_DIR] made into git repositories, everything in them committed (fixed author and date). */
  git: v.optional(v.array(v.string())),
  setup: v.optional(v.array(Step)),
  argv: v.array(v.string()),
  env: v.optional(v.record(v.string(), v.string())),
  stdin: v.optional(v.string()),
  /** Patterns (regular expressions) for values that vary wherever they appear, even inside a string, each mapped to a named token. */
  redact_text: v.optional(
    v.record(
      v.pipe(v.string(), v.check(compiles, "is not a regular expression")),
      v.pipe(v.string(), v.regex(/^\[[A-Z][A-Z0-9_]*\]$/)),
    ),
  ),
  /** JSON paths in stdout (dots, `*` for any element) whose values vary, each mapped to a named token. */
  redact: v.optional(v.record(v.string(), v.pipe(v.string(), v.regex(/^\[[A-Z][A-Z0-9_]*\]$/)))),
  /** Recorded: the exit code, and stdout as JSON (`json`) or as its lines (`text`), tokens and wildcards allowed. */
  expect: v.optional(v.strictObject({ exit: v.number(), kind: v.picklist(["json", "text"]), stdout: v.unknown() })),
});
export type GoldenCase = v.InferOutput<typeof GoldenCase>;

export interface LoadedCase {
  name: string;
  path: string;
  spec: GoldenCase;
}

/** Always redacted: the one field of every envelope that varies from run to run. */
export const DEFAULT_REDACTIONS: Readonly<Record<string, string>> = { "$.meta.duration_ms": "[DURATION]" };

export function loadCases(dir: string): { cases: LoadedCase[]; errors: string[] } {
  if (!existsSync(dir)) return { cases: [], errors: [] };
  const cases: LoadedCase[] = [];
  const errors: string[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const path = join(dir, file);
    try {
      const parsed = v.safeParse(GoldenCase, JSON.parse(readFileSync(path, "utf8")));
      if (parsed.success) cases.push({ name: file.replace(/\.json$/, ""), path, spec: parsed.output });
      else
        errors.push(`${path}: ${parsed.issues.map((i) => `${v.getDotPath(i) ?? "(root)"} ${i.message}`).join("; ")}`);
    } catch (e) {
      errors.push(`${path}: ${(e as Error).message}`);
    }
  }
  return { cases, errors };
}

export function saveCase(c: LoadedCase): void {
  mkdirSync(dirname(c.path), { recursive: true });
  writeFileSync(c.path, `${JSON.stringify(c.spec, null, 2)}\n`);
}

/** The places a case's text may name, and the tokens that stand for them. */
export interface CasePlaces {
  CASE_DIR: string;
  RUN_DIR: string;
  ROOT: string;
  HOME: string;
  TMP: string;
}

export const fill = (text: string, places: CasePlaces): string =>
  text.replace(/\[(CASE_DIR|RUN_DIR|ROOT|HOME|TMP)\]/g, (_, k: keyof CasePlaces) => places[k]);

export function layOut(spec: GoldenCase, places: CasePlaces): void {
  mkdirSync(places.CASE_DIR, { recursive: true });
  for (const [rel, content] of Object.entries(spec.files ?? {})) {
    const target = join(places.CASE_DIR, rel);
    mkdirSync(dirname(target), { recursive: true });
    if (typeof content === "string") writeFileSync(target, content);
    else cpSync(join(places.ROOT, content.copy), target, { recursive: true });
  }
  for (const rel of spec.git ?? []) commitAll(join(places.CASE_DIR, rel));
}

/** A repository whose history is the same on every run: fixed identity, fixed dates, no user config. */
function commitAll(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "golden",
    GIT_AUTHOR_EMAIL: "golden@example.invalid",
    GIT_COMMITTER_NAME: "golden",
    GIT_COMMITTER_EMAIL: "golden@example.invalid",
    GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
  };
  for (const argv of [
    ["init", "-q", "-b", "main"],
    ["add", "-A"],
    ["commit", "-q", "--allow-empty", "-m", "golden fixture"],
  ]) {
    const p = Bun.spawnSync(["git", "-C", dir, ...argv], { env, stdout: "pipe", stderr: "pipe" });
    if (p.exitCode !== 0) throw new Error(`git ${argv[0]} in ${dir}: ${p.stderr.toString().trim()}`);
  }
}

/** Real paths → tokens, longest first, in both their given and resolved spellings. */
export function tokenize(text: string, places: CasePlaces): string {
  const pairs: [string, string][] = [];
  for (const [token, path] of Object.entries(places)) {
    pairs.push([path, `[${token}]`]);
    try {
      const real = realpathSync(path);
      if (real !== path) pairs.push([real, `[${token}]`]);
    } catch {
      // not created (yet): only the given spelling can appear
    }
  }
  pairs.sort((a, b) => b[0].length - a[0].length);
  let out = text;
  for (const [path, token] of pairs) out = out.split(path).join(token);
  return out;
}

/** The first path under the sandbox's root (either spelling) left in recorded text, if any. */
export function strayPath(text: string, root: string): string | null {
  for (const spelling of new Set([root, realpathSync(root)])) {
    const at = text.indexOf(spelling);
    if (at >= 0) return text.slice(at).match(/^[^"\s,]*/)![0];
  }
  return null;
}

/**
 * A redact path in the syntax verify's evidence prints (`$.data.items[0].updated`),
 * with `[*]` (or `.*`) for every item or key; the older bare form (`data.items.*.updated`) reads the same.
 */
export const pathParts = (path: string): string[] =>
  path
    .replace(/^\$\.?/, "")
    .replace(/\[(\d+|\*)\]/g, ".$1")
    .split(".")
    .filter((p) => p !== "");

/** Replaces the values at the given paths (`$.a.b`, `$.a[*].c`) with their tokens. */
export function redactPaths(value: unknown, rules: Readonly<Record<string, string>>): unknown {
  const copy = structuredClone(value);
  for (const [path, token] of Object.entries(rules)) {
    const parts = pathParts(path);
    const walk = (node: unknown, i: number): void => {
      if (node === null || typeof node !== "object") return;
      const key = parts[i]!;
      const container = node as Record<string, unknown>;
      const keys = key === "*" ? Object.keys(container) : key in container ? [key] : [];
      for (const k of keys) {
        if (i === parts.length - 1) container[k] = token;
        else walk(container[k], i + 1);
      }
    };
    walk(copy, 0);
  }
  return copy;
}

/** stdout as it is recorded and compared: tokens for paths and text patterns, then the path rules if it is JSON; text as lines. */
export function normalize(
  stdout: string,
  places: CasePlaces,
  rules: Readonly<Record<string, string>>,
  patterns: Readonly<Record<string, string>> = {},
): { kind: "json" | "text"; stdout: unknown } {
  let text = tokenize(stdout, places);
  for (const [pattern, token] of Object.entries(patterns)) text = text.replace(new RegExp(pattern, "g"), token);
  try {
    return { kind: "json", stdout: redactPaths(JSON.parse(text), { ...DEFAULT_REDACTIONS, ...rules }) };
  } catch {
    return { kind: "text", stdout: text.split("\n") };
  }
}
