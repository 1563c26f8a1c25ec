/**
 * verify: proves, black-box, that compiled tools obey the tool contract.
 * It shares no code with the kit; it only runs the binaries it is given.
 *
 *   verify [flags] <tool-binary>…
 */
import { accessSync, constants, existsSync, fstatSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { applyBaseline, readBaseline, unknownTools, type Baseline } from "./baseline.ts";
import { envelope, failingNames, junit, summarize, textReport, VERIFY_CODES, type VerifyCode } from "./output.ts";
import type { ToolReport } from "./report.ts";
import { Pool } from "./pool.ts";
import { COMMAND, describeDoc, FLAGS, helpText, skillText, SPEC, UNIVERSAL } from "./self.ts";
import { verifyTool } from "./verify-tool.ts";

interface Options {
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
  baseline: string | null;
  dryRun: boolean;
  fields: string | null;
  binaries: string[];
}

class UsageError extends Error {
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

const isTerminal = (fd: number): boolean => {
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

type Answer = Options | { print: string };

function parseArgs(argv: readonly string[]): Answer {
  const o: Options = {
    json: !isTerminal(1),
    junit: null,
    golden: existsSync("test/golden") ? "test/golden" : null,
    update: false,
    fuzz: 0,
    seed: 1,
    timeoutMs: 10000,
    concurrency: availableParallelism() * 2,
    share: null,
    gate: null,
    strict: false,
    baseline: null,
    dryRun: false,
    fields: null,
    binaries: [],
  };
  const own = new Map(FLAGS.map((f) => [f.name, f]));
  const universal = new Map(UNIVERSAL.map((f) => [f.name, f]));
  const tokens = argv[0] === COMMAND ? argv.slice(1) : [...argv];
  // Tool-level documents, as a kit tool answers them (verify --describe, --skill, --spec).
  if (argv[0] !== COMMAND) {
    if (tokens.includes("--describe")) return { print: `${JSON.stringify(describeDoc())}\n` };
    if (tokens.includes("--skill")) return { print: skillText() };
    if (tokens.includes("--spec")) return { print: SPEC };
  } else if (tokens.includes("--describe")) {
    const doc = describeDoc();
    return { print: `${JSON.stringify(doc)}\n` };
  }
  const seen = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === "-h") return { print: helpText() };
    if (!token.startsWith("--")) {
      o.binaries.push(token);
      continue;
    }
    const eq = token.indexOf("=");
    const key = eq === -1 ? token.slice(2) : token.slice(2, eq);
    const inline = eq === -1 ? undefined : token.slice(eq + 1);
    const flag = own.get(key);
    const uni = universal.get(key);
    if (!flag && !uni) {
      const known = [...FLAGS.map((f) => `--${f.name}`), ...UNIVERSAL.map((f) => `--${f.name}`)];
      const near = nearest(`--${key}`, known);
      throw new UsageError(
        "USAGE",
        `unknown flag --${key}; valid flags: ${known.join(", ")}`,
        near ? `did you mean ${near}?` : "run `verify --help`",
      );
    }
    if (key === "help") return { print: helpText() };
    const takesValue = flag ? flag.type !== "boolean" : uni!.value;
    if (!takesValue && inline !== undefined)
      throw new UsageError("USAGE", `--${key} takes no value (got: '${inline.slice(0, 40)}')`);
    if (seen.has(key) && flag?.type !== "array") throw new UsageError("USAGE", `--${key} is given twice; give it once`);
    seen.add(key);
    const value = (): string => {
      const v = inline ?? tokens[++i];
      if (v === undefined || (inline === undefined && v.startsWith("--")))
        throw new UsageError("USAGE", `--${key} needs a value`);
      return v;
    };
    const int = (min: number): number => {
      const raw = value();
      const n = Number(raw);
      if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min)
        throw new UsageError("USAGE", `--${key} must be an integer >= ${min} (got: '${raw.slice(0, 40)}')`, undefined, {
          allowed: { min },
          got: raw.slice(0, 40),
        });
      return n;
    };
    switch (key) {
      case "json":
        o.json = true;
        break;
      case "dry-run":
        o.dryRun = true;
        break;
      case "fields":
        o.fields = value();
        break;
      case "limit":
      case "run-dir":
        value();
        break;
      case "binary":
        o.binaries.push(value());
        break;
      case "strict":
        o.strict = true;
        break;
      case "update":
        o.update = true;
        break;
      case "no-golden":
        o.golden = null;
        break;
      case "baseline":
        o.baseline = value();
        break;
      case "junit":
        o.junit = value();
        break;
      case "golden":
        o.golden = value();
        break;
      case "share":
        o.share = value();
        break;
      case "gate":
        o.gate = value();
        break;
      case "fuzz":
        o.fuzz = int(0);
        break;
      case "seed":
        o.seed = int(0);
        break;
      case "timeout":
        o.timeoutMs = int(100);
        break;
      case "concurrency":
        o.concurrency = int(1);
        break;
      default:
        break; // force, yes, no-input, wait: nothing to do
    }
  }
  if (o.binaries.length === 0)
    throw new UsageError("USAGE", "no tool binary given", "e.g. `verify audit dist/seo`, or `verify dist/seo`");
  if (o.fields !== null) {
    const unknown = o.fields
      .split(",")
      .map((f) => f.trim())
      .filter((f) => f && f !== "summary" && f !== "tools");
    if (unknown.length)
      throw new UsageError("USAGE", `--fields names ${unknown.join(", ").slice(0, 80)}; valid: summary, tools`);
  }
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
  return o;
}

async function main(): Promise<number> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const usage = async (e: UsageError): Promise<number> => {
    const wantsJson = process.argv.includes("--json") || !isTerminal(1);
    if (wantsJson)
      await Bun.write(
        Bun.stdout,
        envelope(null, { code: e.code, message: e.message, hint: e.hint, ...e.range }, elapsed()),
      );
    else process.stderr.write(`error ${e.code}: ${e.message}${e.hint ? `\nhint: ${e.hint}` : ""}\n`);
    return VERIFY_CODES[e.code];
  };
  let o: Answer;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usage(e);
  }
  if ("print" in o) {
    await Bun.write(Bun.stdout, o.print);
    return 0;
  }
  const opts = o;
  process.on("SIGINT", () => {
    process.stdout.write(envelope(null, { code: "CANCELLED", message: "interrupted by SIGINT" }, elapsed()));
    process.exit(130);
  });

  let baseline: Baseline | null = null;
  if (opts.baseline)
    try {
      baseline = readBaseline(opts.baseline);
    } catch (e) {
      return usage(new UsageError("USAGE", (e as Error).message, 'write {"<tool>": ["check.id", …]}'));
    }
  const pool = new Pool(opts.concurrency);
  const root = process.cwd();
  const verified: ToolReport[] = await Promise.all(
    opts.binaries.map((binary) =>
      verifyTool(resolve(binary), pool, {
        strict: opts.strict,
        share: opts.share ? resolve(opts.share) : null,
        siblings: opts.gate ? { gate: resolve(opts.gate) } : {},
        golden: opts.golden
          ? { dir: resolve(opts.golden), root, update: opts.update && !opts.dryRun, ci: Boolean(process.env.CI) }
          : null,
        fuzz: opts.fuzz,
        seed: opts.seed,
        timeoutMs: opts.timeoutMs,
      }),
    ),
  );
  const reports = baseline ? verified.map((r) => applyBaseline(r, baseline!, opts.baseline!)) : verified;
  const summary = {
    ...summarize(reports, elapsed()),
    ...(baseline ? { baseline_unknown_tools: unknownTools(baseline, reports) } : {}),
  };
  if (baseline && summary.baseline_unknown_tools!.length)
    process.stderr.write(
      `verify: the baseline ${opts.baseline} lists tool(s) not verified here: ${summary.baseline_unknown_tools!.join(", ")}\n`,
    );
  if (opts.junit && !opts.dryRun)
    try {
      writeFileSync(opts.junit, junit(reports));
    } catch (e) {
      return usage(
        new UsageError(
          "USAGE",
          `--junit ${opts.junit.slice(0, 200)} cannot be written: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
          "give a writable file path",
        ),
      );
    }
  const allOk = reports.every((r) => r.ok);
  if (opts.json) {
    const error = allOk
      ? null
      : {
          code: "NONCONFORMING" as const,
          message: `${summary.tools - summary.conforming} of ${summary.tools} tool(s) do not conform: ${failingNames(reports)}`,
          hint: "each failing check in error.detail.tools[].checks has its evidence: the argv, the exit code and the output",
          detail: { summary, tools: reports },
        };
    const data: Record<string, unknown> = { summary, tools: reports };
    const projected =
      opts.fields === null
        ? data
        : Object.fromEntries(
            Object.entries(data).filter(([k]) =>
              opts
                .fields!.split(",")
                .map((f) => f.trim())
                .includes(k),
            ),
          );
    await Bun.write(Bun.stdout, envelope(projected, error, elapsed()));
  } else process.stdout.write(textReport(reports, summary, !process.env.NO_COLOR));
  return allOk ? 0 : VERIFY_CODES.NONCONFORMING;
}

try {
  process.exitCode = await main();
} catch (e) {
  await Bun.write(
    Bun.stdout,
    envelope(null, { code: "INTERNAL", message: `verify failed: ${(e as Error).message?.split("\n")[0]}` }, 0),
  );
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
}
