/**
 * verify: proves, black-box, that compiled tools obey the tool contract.
 * It shares no code with the kit; it only runs the binaries it is given.
 *
 *   verify [flags] <tool-binary>…
 */
import { accessSync, constants, existsSync, fstatSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { applyBaseline, readBaseline, type Baseline } from "./baseline.ts";
import { envelope, failingNames, junit, summarize, textReport, VERIFY_CODES, type VerifyCode } from "./output.ts";
import type { ToolReport } from "./report.ts";
import { Pool } from "./sandbox.ts";
import { verifyTool } from "./verify-tool.ts";

const HELP = `verify: prove that compiled tools obey the tool contract

USAGE
  verify [flags] <tool-binary>…

FLAGS
  --json             Print the result envelope (the default when stdout is not a terminal).
  --junit FILE       Also write the report as JUnit XML, for CI.
  --golden DIR       Replay the golden cases under DIR/<tool>/ (default: ./test/golden when present).
  --no-golden        Do not replay golden cases.
  --update           Re-record every golden case's expectation (and create missing ones).
  --fuzz N           N randomized invocations per command (default 0: off).
  --seed N           Seed for --fuzz, so a failure replays (default 1).
  --timeout MS       Kill a run that takes longer and call it a hang (default 10000).
  --concurrency N    Runs in flight at once (default: twice the cores).
  --share DIR        Read <tool>/SKILL.md and <tool>/spec.yaml from DIR. Without it: what the tool prints
                     (its --describe lists "documents"), else the current folder when it is the tool's
                     repository (its spec.yaml names the tool), else share/<tool>/ beside the binary.
  --gate PATH        The gate, for golden cases that drive it (default: beside the binary, else on PATH;
                     without one those cases are skipped, saying so).
  --strict           Demand every kit extension (cursor, params, toon, hint, per-command describe,
                     the kit's describe fields, error codes, help and SKILL.md layout), claimed or not.
                     Without it, the contract's rules are checked, and an extension only where the
                     tool claims it in --describe's "extensions".
  --baseline FILE    Expected failures, {"<tool>": ["check.id", …]}: listed failures do not fail the run,
                     and a listed check that now passes does (the baseline is stale).
  --help             Print this help.

EXIT CODES
  0    every tool conforms
  2    usage error, or a binary that cannot be run (USAGE, NOT_EXECUTABLE)
  3    a tool does not conform (NONCONFORMING; the report is in error.detail)
  1    the verifier itself failed (INTERNAL)
  130  interrupted (CANCELLED)

With CI set, a golden case without a recorded expectation fails instead of being recorded.
`;

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
  binaries: string[];
}

class UsageError extends Error {
  constructor(
    readonly code: VerifyCode,
    message: string,
    readonly hint?: string,
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
      for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
    return prev[b.length]!;
  };
  const [best] = known.map((k) => [k, distance(word, k)] as const).sort((x, y) => x[1] - y[1]);
  return best && best[1] <= 2 ? best[0] : null;
}

function parseArgs(argv: readonly string[]): Options | "help" {
  const o: Options = { json: !isTerminal(1), junit: null, golden: existsSync("test/golden") ? "test/golden" : null, update: false, fuzz: 0, seed: 1, timeoutMs: 10000, concurrency: availableParallelism() * 2, share: null, gate: null, strict: false, baseline: null, binaries: [] };
  const valueFlags = new Set(["--junit", "--golden", "--fuzz", "--seed", "--timeout", "--concurrency", "--share", "--gate", "--baseline"]);
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    const [name, inline] = token.startsWith("--") ? (token.includes("=") ? [token.slice(0, token.indexOf("=")), token.slice(token.indexOf("=") + 1)] : [token, undefined]) : [token, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || (inline === undefined && v.startsWith("--"))) throw new UsageError("USAGE", `${name} needs a value`);
      return v;
    };
    const int = (min: number) => {
      const raw = value();
      const n = Number(raw);
      if (!Number.isInteger(n) || n < min) throw new UsageError("USAGE", `${name} must be an integer >= ${min} (got: '${raw}')`);
      return n;
    };
    if (name === "--help" || name === "-h") return "help";
    else if (name === "--json") o.json = true;
    else if (name === "--update") o.update = true;
    else if (name === "--strict") o.strict = true;
    else if (name === "--baseline") o.baseline = value();
    else if (name === "--no-golden") o.golden = null;
    else if (name === "--junit") o.junit = value();
    else if (name === "--golden") o.golden = value();
    else if (name === "--share") o.share = value();
    else if (name === "--gate") o.gate = value();
    else if (name === "--fuzz") o.fuzz = int(0);
    else if (name === "--seed") o.seed = int(0);
    else if (name === "--timeout") o.timeoutMs = int(100);
    else if (name === "--concurrency") o.concurrency = int(1);
    else if (name.startsWith("-")) {
      const known = ["--json", "--junit", "--golden", "--no-golden", "--update", "--fuzz", "--seed", "--timeout", "--concurrency", "--share", "--gate", "--strict", "--baseline", "--help"];
      const near = nearest(name, known);
      throw new UsageError("USAGE", `unknown flag ${name}; valid flags: ${known.join(", ")}`, near ? `did you mean ${near}?` : "run `verify --help`");
    } else o.binaries.push(token);
    if (!valueFlags.has(name) && inline !== undefined && name.startsWith("--")) throw new UsageError("USAGE", `${name} takes no value`);
  }
  if (o.binaries.length === 0) throw new UsageError("USAGE", "no tool binary given", "e.g. `verify dist/seo`");
  for (const b of [...o.binaries, ...(o.gate ? [o.gate] : [])]) {
    try {
      accessSync(b, constants.X_OK);
    } catch {
      throw new UsageError("NOT_EXECUTABLE", `${b} is not an executable file`, "build the fleet first (`npm run build`), then pass the binaries in dist/");
    }
  }
  return o;
}

async function main(): Promise<number> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const usage = async (e: UsageError): Promise<number> => {
    const wantsJson = process.argv.includes("--json") || !isTerminal(1);
    if (wantsJson) await Bun.write(Bun.stdout, envelope(null, { code: e.code, message: e.message, hint: e.hint }, elapsed()));
    else process.stderr.write(`error ${e.code}: ${e.message}${e.hint ? `\nhint: ${e.hint}` : ""}\n`);
    return VERIFY_CODES[e.code];
  };
  let o: Options | "help";
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usage(e);
  }
  if (o === "help") {
    await Bun.write(Bun.stdout, HELP);
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
      return usage(new UsageError("USAGE", (e as Error).message, "write {\"<tool>\": [\"check.id\", …]}"));
    }
  const pool = new Pool(opts.concurrency);
  const root = process.cwd();
  const verified: ToolReport[] = await Promise.all(
    opts.binaries.map((binary) =>
      verifyTool(resolve(binary), pool, {
        strict: opts.strict,
        share: opts.share ? resolve(opts.share) : null,
        siblings: opts.gate ? { gate: resolve(opts.gate) } : {},
        golden: opts.golden ? { dir: resolve(opts.golden), root, update: opts.update, ci: Boolean(process.env.CI) } : null,
        fuzz: opts.fuzz,
        seed: opts.seed,
        timeoutMs: opts.timeoutMs,
      }),
    ),
  );
  const reports = baseline ? verified.map((r) => applyBaseline(r, baseline!, opts.baseline!)) : verified;
  const summary = summarize(reports, elapsed());
  if (opts.junit) writeFileSync(opts.junit, junit(reports));
  const allOk = reports.every((r) => r.ok);
  if (opts.json) {
    const error = allOk
      ? null
      : { code: "NONCONFORMING" as const, message: `${summary.tools - summary.conforming} of ${summary.tools} tool(s) do not conform: ${failingNames(reports)}`, hint: "each failing check in error.detail.tools[].checks has its evidence: the argv, the exit code and the output", detail: { summary, tools: reports } };
    await Bun.write(Bun.stdout, envelope({ summary, tools: reports }, error, elapsed()));
  } else process.stdout.write(textReport(reports, summary, !process.env.NO_COLOR));
  return allOk ? 0 : VERIFY_CODES.NONCONFORMING;
}

try {
  process.exitCode = await main();
} catch (e) {
  await Bun.write(Bun.stdout, envelope(null, { code: "INTERNAL", message: `verify failed: ${(e as Error).message?.split("\n")[0]}` }, 0));
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
}
