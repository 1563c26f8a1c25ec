/**
 * verify's argv, read against its own flag table (self.ts): its documents,
 * its flags, and usage errors that teach (contract §4: a range rejection
 * carries allowed and got).
 */
import { accessSync, constants, existsSync, fstatSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { VerifyCode } from "./output.ts";
import { defaultConcurrency } from "./base/pool.ts";
import { COMMAND, describeDoc, FLAGS, helpText, skillText, SPEC, UNIVERSAL, VERSION } from "./self.ts";

export interface Options {
  json: boolean;
  junit: string | null;
  golden: string | null;
  update: boolean;
  fuzz: number;
  seed: number;
  timeoutMs: number;
  concurrency: number;
  share: string | null;
  gate: string | null;
  strict: boolean;
  allExtensions: boolean;
  baseline: string | null;
  dryRun: boolean;
  fields: string | null;
  binaries: string[];
}

export class UsageError extends Error {
  constructor(
    readonly code: VerifyCode,
    message: string,
    readonly hint?: string,
    /** contract §4: a range rejection says what is allowed and what it got. */
    readonly range?: { allowed: { min: number }; got: string },
  ) {
    super(message);
  }
}

export const isTerminal = (fd: number): boolean => {
  try {
    const st = fstatSync(fd);
    return st.isCharacterDevice() && st.rdev !== statSync("/dev/null").rdev;
  } catch {
    return false;
  }
};

/** The known flag within two edits of a mistyped one, if any. */
function nearest(word: string, known: readonly string[]): string | null {
  const distance = (a: string, b: string): number => {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const cur = [i];
      for (let j = 1; j <= b.length; j++)
        cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
    return prev[b.length]!;
  };
  const [best] = known.map((k) => [k, distance(word, k)] as const).sort((x, y) => x[1] - y[1]);
  return best && best[1] <= 2 ? best[0] : null;
}

export type Answer = Options | { print: string };

const defaults = (): Options => ({
  json: !isTerminal(1),
  junit: null,
  golden: existsSync("test/golden") ? "test/golden" : null,
  update: false,
  fuzz: 0,
  seed: 1,
  timeoutMs: 10000,
  concurrency: defaultConcurrency(availableParallelism(), process.env.VERIFY_CONCURRENCY),
  share: null,
  gate: null,
  strict: false,
  allExtensions: false,
  baseline: null,
  dryRun: false,
  fields: null,
  binaries: [],
});

/** Tool-level documents, as a kit tool answers them (verify --describe, --skill, --spec). */
function documentAsked(argv: readonly string[], tokens: readonly string[]): string | null {
  if (argv[0] === COMMAND) return tokens.includes("--describe") ? `${JSON.stringify(describeDoc())}\n` : null;
  if (tokens.includes("--describe")) return `${JSON.stringify(describeDoc())}\n`;
  if (tokens.includes("--skill")) return skillText();
  if (tokens.includes("--spec")) return SPEC;
  // The kit's own addition, answered as a kit tool answers it: one line (the kit and verify are one package).
  if (tokens.includes("--version")) return `verify ${VERSION} (agent-cli-kit ${VERSION}, contract 0)\n`;
  return null;
}

/** One flag's value as its setter reads it: the next token or the inline one, an integer within its minimum. */
interface Value {
  text(): string;
  int(min: number): number;
}

type Setter = (o: Options, v: Value) => void;

/** What each flag does to the options; force, yes, no-input, wait, limit and run-dir change nothing here. */
const SETTERS: Readonly<Record<string, Setter>> = {
  json: (o) => void (o.json = true),
  "dry-run": (o) => void (o.dryRun = true),
  fields: (o, v) => void (o.fields = v.text()),
  limit: (_, v) => void v.text(),
  "run-dir": (_, v) => void v.text(),
  binary: (o, v) => void o.binaries.push(v.text()),
  strict: (o) => void (o.strict = true),
  "all-extensions": (o) => void (o.allExtensions = true),
  update: (o) => void (o.update = true),
  "no-golden": (o) => void (o.golden = null),
  baseline: (o, v) => void (o.baseline = v.text()),
  junit: (o, v) => void (o.junit = v.text()),
  golden: (o, v) => void (o.golden = v.text()),
  share: (o, v) => void (o.share = v.text()),
  gate: (o, v) => void (o.gate = v.text()),
  fuzz: (o, v) => void (o.fuzz = v.int(0)),
  seed: (o, v) => void (o.seed = v.int(0)),
  timeout: (o, v) => void (o.timeoutMs = v.int(100)),
  concurrency: (o, v) => void (o.concurrency = v.int(1)),
};

const KNOWN = [...FLAGS.map((f) => `--${f.name}`), ...UNIVERSAL.map((f) => `--${f.name}`)];

/** Reads the flag at tokens[i]; returns the index of the last token it took. */
function readFlag(o: Options, tokens: readonly string[], i: number, seen: Set<string>): number {
  const token = tokens[i]!;
  const eq = token.indexOf("=");
  const key = eq === -1 ? token.slice(2) : token.slice(2, eq);
  const inline = eq === -1 ? undefined : token.slice(eq + 1);
  const flag = FLAGS.find((f) => f.name === key);
  const uni = UNIVERSAL.find((f) => f.name === key);
  if (!flag && !uni) {
    const near = nearest(`--${key}`, KNOWN);
    throw new UsageError(
      "USAGE",
      `unknown flag --${key}; valid flags: ${KNOWN.join(", ")}`,
      near ? `did you mean ${near}?` : "run `verify --help`",
    );
  }
  const takesValue = flag ? flag.type !== "boolean" : uni!.value;
  if (!takesValue && inline !== undefined)
    throw new UsageError("USAGE", `--${key} takes no value (got: '${inline.slice(0, 40)}')`);
  if (seen.has(key) && flag?.type !== "array") throw new UsageError("USAGE", `--${key} is given twice; give it once`);
  seen.add(key);
  let last = i;
  const text = (): string => {
    const v = inline ?? tokens[++last];
    if (v === undefined || (inline === undefined && v.startsWith("--")))
      throw new UsageError("USAGE", `--${key} needs a value`);
    return v;
  };
  const int = (min: number): number => {
    const raw = text();
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min)
      throw new UsageError("USAGE", `--${key} must be an integer >= ${min} (got: '${raw.slice(0, 40)}')`, undefined, {
        allowed: { min },
        got: raw.slice(0, 40),
      });
    return n;
  };
  SETTERS[key]?.(o, { text, int });
  return last;
}

/** What the options must hold once read: a binary, known --fields, executables. */
function validate(o: Options): void {
  if (o.concurrency === 0) {
    const got = (process.env.VERIFY_CONCURRENCY ?? "").slice(0, 40);
    throw new UsageError("USAGE", `VERIFY_CONCURRENCY must be an integer >= 1 (got: '${got}')`, undefined, {
      allowed: { min: 1 },
      got,
    });
  }
  if (o.binaries.length === 0)
    throw new UsageError("USAGE", "no tool binary given", "e.g. `verify audit dist/seo`, or `verify dist/seo`");
  const unknown = (o.fields ?? "")
    .split(",")
    .map((f) => f.trim())
    .filter((f) => f && f !== "summary" && f !== "tools");
  if (unknown.length)
    throw new UsageError("USAGE", `--fields names ${unknown.join(", ").slice(0, 80)}; valid: summary, tools`);
  for (const b of [...o.binaries, ...(o.gate ? [o.gate] : [])]) {
    try {
      accessSync(b, constants.X_OK);
      if (!statSync(b).isFile()) throw new Error("not a file");
    } catch {
      throw new UsageError(
        "NOT_EXECUTABLE",
        `${b.slice(0, 200)} is not an executable file`,
        "build the tool first (`npx agent-cli-kit build` in its repository writes dist/NAME), then pass the binary's path",
      );
    }
  }
}

export function parseArgs(argv: readonly string[]): Answer {
  const tokens = argv[0] === COMMAND ? argv.slice(1) : [...argv];
  const document = documentAsked(argv, tokens);
  if (document !== null) return { print: document };
  const o = defaults();
  const seen = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === "-h" || token === "--help" || token.startsWith("--help=")) return { print: helpText() };
    if (token.startsWith("--")) i = readFlag(o, tokens, i, seen);
    else o.binaries.push(token);
  }
  validate(o);
  return o;
}
