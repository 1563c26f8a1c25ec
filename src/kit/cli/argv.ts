/**
 * Splits argv into the command words and the flags, and reads the flags
 * strictly. Every token is accounted for: an unknown flag, a missing value,
 * a repeated single-valued flag or a stray argument is a usage error naming
 * what was valid — never a silently different invocation.
 */
import { KitError } from "../output/index.ts";
import { nearest } from "./suggest.ts";

export interface ArgvFlag {
  readonly name: string;
  /** Switches take no value; everything else takes exactly one per occurrence. */
  readonly kind: "boolean" | "value" | "repeatable";
  /** A flag the command cannot run without: a stray word is most likely its value. */
  readonly required?: boolean;
}

/** Raw values as typed: strings (or string lists), `true`/`false` for switches. */
export type RawFlags = Record<string, string | boolean | string[]>;

export interface SplitArgv {
  /** The bare words before the first flag: the command path. */
  readonly words: readonly string[];
  readonly rest: readonly string[];
}

/** Leading bare words name the command; the first flag ends them. */
export function splitCommandWords(argv: readonly string[], maxWords: number): SplitArgv {
  let n = 0;
  while (n < argv.length && n < maxWords && !argv[n]!.startsWith("-")) n++;
  return { words: argv.slice(0, n), rest: argv.slice(n) };
}

const BOOLEAN_TEXT: ReadonlyMap<string, boolean> = new Map([
  ["true", true],
  ["false", false],
  ["1", true],
  ["0", false],
]);

const given = (tokens: readonly string[], name: string): boolean =>
  tokens.some((t) => t === `--${name}` || t.startsWith(`--${name}=`));

/** A word where a flag was expected: name the required flag still missing (the word is most likely its value), else any flag that takes one. */
function strayHint(word: string, tokens: readonly string[], known: readonly ArgvFlag[], usage: string): string {
  const missing = known.filter((f) => f.required && !given(tokens, f.name));
  const help = `see \`${usage} --help\``;
  if (missing.length > 0) {
    const value = /^[\w./:@-]+$/.test(word) ? word : JSON.stringify(word);
    const rest = missing.slice(1).map((f) => ` --${f.name}=VALUE`);
    return `the required --${missing[0]!.name} is missing: pass the value as a flag, \`${usage} --${missing[0]!.name}=${value}${rest.join("")}\`; ${help}`;
  }
  return `pass values as flags, e.g. --${known.find((f) => f.kind !== "boolean")?.name ?? "flag"}=VALUE; ${help}`;
}

export function parseFlags(tokens: readonly string[], known: readonly ArgvFlag[], usage: string): RawFlags {
  const byName = new Map(known.map((f) => [f.name, f]));
  const names = known.map((f) => `--${f.name}`);
  const out: RawFlags = {};

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === "-h") {
      out.help = true;
      continue;
    }
    if (!token.startsWith("--") || token === "--") {
      const got = token === "--" ? tokens.slice(i + 1).join(" ") : token;
      throw new KitError("USAGE", `unexpected argument '${got}': ${usage} takes flags only`, {
        got,
        hint: strayHint(got, tokens, known, usage),
      });
    }
    const eq = token.indexOf("=");
    const name = token.slice(2, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : token.slice(eq + 1);
    const flag = byName.get(name);
    if (!flag) {
      const guess = nearest(`--${name}`, names);
      throw new KitError("UNKNOWN_FLAG", `unknown flag --${name} for ${usage}; valid flags: ${names.join(", ")}`, {
        allowed: names,
        got: `--${name}`,
        hint: guess ? `did you mean ${guess}?` : `run \`${usage} --help\` for the flags`,
      });
    }

    if (flag.kind === "boolean") {
      setSwitch(out, name, inline);
      continue;
    }

    let value = inline;
    if (value === undefined) {
      const next = tokens[i + 1];
      // A value that looks like a flag is a forgotten value; `--x=--y` says it on purpose.
      if (next === undefined || (next.startsWith("--") && next.length > 2)) {
        throw new KitError("INVALID_VALUE", `--${name} needs a value`, {
          got: null,
          hint: `write --${name}=VALUE${next ? ` (the next token, ${next}, is a flag)` : ""}`,
        });
      }
      value = next;
      i++;
    }
    setValue(out, flag, value);
  }
  return out;
}

/** `--x` or `--x=true|false`; the same switch twice must agree. */
function setSwitch(out: RawFlags, name: string, inline: string | undefined): void {
  let value = true;
  if (inline !== undefined) {
    const read = BOOLEAN_TEXT.get(inline);
    if (read === undefined)
      throw new KitError(
        "INVALID_VALUE",
        `--${name} is a switch: give it alone, or as --${name}=true|false (got: '${inline}')`,
        {
          allowed: ["true", "false"],
          got: inline,
        },
      );
    value = read;
  }
  if (Object.hasOwn(out, name) && out[name] !== value)
    throw new KitError("CONFLICTING_FLAGS", `--${name} is given twice with different values`, { got: `--${name}` });
  out[name] = value;
}

/** A repeatable flag collects its values; any other takes exactly one. */
function setValue(out: RawFlags, flag: ArgvFlag, value: string): void {
  const { name } = flag;
  if (flag.kind === "repeatable") {
    const list = (out[name] as string[] | undefined) ?? [];
    list.push(value);
    out[name] = list;
    return;
  }
  if (Object.hasOwn(out, name))
    throw new KitError("CONFLICTING_FLAGS", `--${name} is given twice ('${out[name]}' and '${value}'); give it once`, {
      got: [out[name], value],
    });
  out[name] = value;
}
