/**
 * verify: proves, black-box, that compiled tools obey the tool contract.
 * It shares no code with the kit; it only runs the binaries it is given.
 *
 *   verify [flags] <tool-binary>…
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Answer, isTerminal, type Options, parseArgs, UsageError } from "./args.ts";
import { applyBaseline, type Baseline, readBaseline, unknownTools } from "./baseline.ts";
import { envelope, failingNames, junit, summarize, textReport, VERIFY_CODES } from "./output.ts";
import { Pool } from "./base/pool.ts";
import type { ToolReport } from "./base/report.ts";
import { verifyTool } from "./verify-tool.ts";

const started = performance.now();
const elapsed = () => Math.round(performance.now() - started);

async function usage(e: UsageError): Promise<number> {
  const wantsJson = process.argv.includes("--json") || !isTerminal(1);
  if (wantsJson)
    await Bun.write(
      Bun.stdout,
      envelope(null, { code: e.code, message: e.message, hint: e.hint, ...e.range }, elapsed()),
    );
  else process.stderr.write(`error ${e.code}: ${e.message}${e.hint ? `\nhint: ${e.hint}` : ""}\n`);
  return VERIFY_CODES[e.code];
}

/** Every binary verified at once, through one pool of runs. */
function verifyAll(opts: Options): Promise<ToolReport[]> {
  const pool = new Pool(opts.concurrency);
  const root = process.cwd();
  return Promise.all(
    opts.binaries.map((binary) =>
      verifyTool(resolve(binary), pool, {
        strict: opts.strict,
        allExtensions: opts.allExtensions,
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
}

/** The result as one envelope (its data projected by --fields), or the readable report on a terminal. */
async function print(opts: Options, reports: ToolReport[], summary: ReturnType<typeof summarize>): Promise<void> {
  if (!opts.json) {
    process.stdout.write(textReport(reports, summary, !process.env.NO_COLOR));
    return;
  }
  const error = reports.every((r) => r.ok)
    ? null
    : {
        code: "NONCONFORMING" as const,
        message: `${summary.tools - summary.conforming} of ${summary.tools} tool(s) do not conform: ${failingNames(reports)}`,
        hint: "each failing check in error.detail.tools[].checks has its evidence: the argv, the exit code and the output",
        detail: { summary, tools: reports },
      };
  const data: Record<string, unknown> = { summary, tools: reports };
  const fields = opts.fields?.split(",").map((f) => f.trim()) ?? null;
  const projected =
    fields === null ? data : Object.fromEntries(Object.entries(data).filter(([k]) => fields.includes(k)));
  await Bun.write(Bun.stdout, envelope(projected, error, elapsed()));
}

async function main(): Promise<number> {
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
  try {
    baseline = opts.baseline ? readBaseline(opts.baseline) : null;
  } catch (e) {
    return usage(new UsageError("USAGE", (e as Error).message, 'write {"<tool>": ["check.id", …]}'));
  }
  const verified = await verifyAll(opts);
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
      const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      return usage(
        new UsageError(
          "USAGE",
          `--junit ${opts.junit.slice(0, 200)} cannot be written: ${why}`,
          "give a writable file path",
        ),
      );
    }
  await print(opts, reports, summary);
  return reports.every((r) => r.ok) ? 0 : VERIFY_CODES.NONCONFORMING;
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
