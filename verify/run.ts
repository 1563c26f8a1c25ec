/**
 * A verify run, once the arguments are understood: every binary verified
 * through one pool, the baseline applied, the report printed. Loaded by
 * main.ts only for a run, so its usage answers (`--help`, `--describe`, a bad
 * flag) start without the checks.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Options, UsageError } from "./args.ts";
import { applyBaseline, type Baseline, readBaseline, unknownTools } from "./baseline.ts";
import { Pool } from "./base/pool.ts";
import type { ToolReport } from "./base/report.ts";
import { envelope, failingNames, junit, summarize, textReport, VERIFY_CODES } from "./output.ts";
import { verifyTool } from "./verify-tool.ts";

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
async function print(
  opts: Options,
  reports: ToolReport[],
  summary: ReturnType<typeof summarize>,
  elapsed: () => number,
): Promise<void> {
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

/**
 * The run, its exit code; `usage` answers a usage error found on the way (the baseline, the --junit file),
 * `elapsed` is the milliseconds since verify started.
 */
export async function run(
  opts: Options,
  usage: (e: UsageError) => Promise<number>,
  elapsed: () => number,
): Promise<number> {
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
  await print(opts, reports, summary, elapsed);
  return reports.every((r) => r.ok) ? 0 : VERIFY_CODES.NONCONFORMING;
}
