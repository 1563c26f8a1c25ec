/**
 * Runs a job's steps in order, each a fleet tool as a child process with an
 * argv array (never a shell): in the job's run dir, answering in JSON, never
 * prompting, its input on stdin. A failed step stops the job unless it says
 * continue_on_error; a cancellation stops the step running and the job.
 * Each step is a process group with a time limit (base/process-group.ts).
 * Values the harness passes (the run dir) join the step's input there, never
 * argv words; and no step is a person's act (identity/doors.ts).
 */
import { runInGroup } from "../../kit/base/index.ts";
import { doorEnv } from "../../kit/identity/index.ts";
import { fleetTool } from "../../kit/runtime/index.ts";
import { envelopeOf } from "./envelope.ts";
import type { StepRun } from "./fold.ts";
import type { Job } from "./job.ts";

export interface StepContext {
  readonly runDir: string;
  /** The steps' environment: the harness's own, less its own credentials. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal: AbortSignal;
  readonly now: () => number;
  /** After each step: what has run so far (a cancellation reports it). */
  readonly onStep: (runs: readonly StepRun[]) => void;
  /** The harness's redactor: a step's stray output is redacted before it is cut into the report. */
  readonly redact: (text: string) => string;
}

const isRunDir = (a: string): boolean => a === "--run-dir" || a.startsWith("--run-dir=");

/**
 * The step's argv with `{run_dir}` filled in, and the switches the harness
 * always gives; with input, the run dir goes in it (stepInput), not on argv.
 */
export function stepArgv(argv: readonly string[], runDir: string, hasInput: boolean): string[] {
  const filled = argv.map((a) => a.replaceAll("{run_dir}", runDir));
  const extra: string[] = [];
  for (const flag of ["--json", "--no-input"]) if (!filled.includes(flag)) extra.push(flag);
  if (!filled.some(isRunDir) && !hasInput) extra.push("--run-dir", runDir);
  if (hasInput) extra.push("--params", "-");
  return [...filled, ...extra];
}

/** The --params document of a step with input: its input, and the run dir unless the step names its own. */
export function stepInput(step: Job["steps"][number], runDir: string): Record<string, unknown> | undefined {
  if (step.input === undefined) return undefined;
  const own = "run-dir" in step.input || step.argv.some(isRunDir);
  return own ? { ...step.input } : { ...step.input, "run-dir": runDir };
}

async function runOne(job: Job, index: number, ctx: StepContext): Promise<StepRun> {
  const step = job.steps[index]!;
  const [tool, ...rest] = stepArgv(step.argv, ctx.runDir, step.input !== undefined);
  const started = ctx.now();
  const input = stepInput(step, ctx.runDir);
  const ran = await runInGroup([...fleetTool(tool!), ...rest], {
    cwd: job.base,
    env: doorEnv(ctx.env, "harness"),
    ...(input === undefined ? {} : { input: JSON.stringify(input) }),
    limitMs: step.limitMs,
    graceMs: job.graceMs,
    signal: ctx.signal,
  });
  const parsed = envelopeOf(ran.stdout, tool!, ctx.redact);
  const seen =
    "envelope" in parsed
      ? { envelope: parsed.envelope }
      : { envelope: null, problem: parsed.problem, malformed: parsed.malformed };
  return {
    index,
    argv: [tool!, ...step.argv.slice(1)],
    exit: ran.exit,
    durationMs: ctx.now() - started,
    signal: ran.signal,
    stopped: ran.stopped,
    limitMs: step.limitMs,
    ...seen,
  };
}

export async function runSteps(
  job: Job,
  ctx: StepContext,
): Promise<{ runs: StepRun[]; notRun: number; cancelled: boolean }> {
  const runs: StepRun[] = [];
  for (const [index, step] of job.steps.entries()) {
    if (ctx.signal.aborted) return { runs, notRun: job.steps.length - index, cancelled: true };
    const run = await runOne(job, index, ctx);
    runs.push(run);
    ctx.onStep(runs);
    const ok = run.exit === 0 && run.envelope?.ok === true && !run.stopped;
    if (ctx.signal.aborted) return { runs, notRun: job.steps.length - index - 1, cancelled: true };
    if (!ok && !step.continue_on_error) return { runs, notRun: job.steps.length - index - 1, cancelled: false };
  }
  return { runs, notRun: 0, cancelled: false };
}
