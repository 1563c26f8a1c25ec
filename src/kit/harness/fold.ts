/**
 * The seam (contract §12): the envelopes of a job's steps folded into one
 * job response. Pure: the same steps give the same response, which the
 * harness-conformance test holds to a table.
 */
import { roundUsd } from "../output/envelope.ts";
import { REDISPATCH_CODES } from "../output/errors.ts";
import type { ArtifactRef } from "./artifacts.ts";

/** What the harness saw of one step: its argv, how it exited, the envelope it printed (null: none). */
export interface StepRun {
  readonly index: number;
  readonly argv: readonly string[];
  readonly exit: number;
  readonly envelope: StepEnvelope | null;
  /** When there is no envelope: why (what it printed instead, or that it never ran to the end). */
  readonly problem?: string;
  readonly durationMs: number;
}

/** The parts of a tool's envelope the job response reads. */
export interface StepEnvelope {
  readonly ok: boolean;
  readonly tool: string;
  readonly command: string;
  readonly data: unknown;
  readonly error: Readonly<Record<string, unknown>> | null;
  readonly meta: {
    readonly schema: string | null;
    readonly cost_usd: number;
    readonly llm_tokens: number;
    readonly outcome: unknown;
    readonly next?: readonly string[];
    /** Register-once secrets (contract §10): delivered to the secret sink only, never folded into the report. */
    readonly secrets_out?: Readonly<Record<string, string>>;
  };
}

/**
 * What the platform does about a failed step (contract §10): `re-dispatch`
 * the job with fresh credentials (a dead credential; retrying cannot help),
 * `retry` it as it is (a passing failure), or neither (null: fix the input,
 * or a person decides).
 */
export type Remedy = "re-dispatch" | "retry" | null;

export interface StepRecord {
  step: number;
  tool: string;
  command: string;
  argv: string[];
  exit: number;
  ok: boolean;
  schema: string | null;
  outcome: unknown;
  duration_ms: number;
  cost_usd: number;
  llm_tokens: number;
  data: unknown;
  remedy: Remedy;
}

export type JobStatus = "succeeded" | "partial" | "failed";

export interface JobReport {
  job_id: string;
  event_type: "job.completed";
  event_id: string;
  status: JobStatus;
  /** Stopped by SIGINT/SIGTERM: the steps are those that ran. */
  cancelled: boolean;
  steps: StepRecord[];
  /** Steps never started: after a failure without continue_on_error, or a cancellation. */
  not_run: number;
  cost_usd: number;
  llm_tokens: number;
  errors: { step: number; tool: string; command: string; error: Readonly<Record<string, unknown>> }[];
  next: { step: number; commands: string[] }[];
  artifacts: ArtifactRef[];
}

/** Without an envelope, the command is the words before the first flag, as the tool itself reads them. */
function commandWords(words: readonly string[]): string {
  const firstFlag = words.findIndex((w) => w.startsWith("-"));
  return (firstFlag < 0 ? words : words.slice(0, firstFlag)).slice(0, 2).join(" ");
}

function recordOf(s: StepRun): { record: StepRecord; error: Readonly<Record<string, unknown>> | null } {
  const env = s.envelope;
  const [tool = "", ...words] = s.argv;
  const error = env ? env.error : { code: "INTERNAL", message: `the step printed no envelope: ${s.problem ?? "nothing on stdout"}`, retryable: false };
  const record: StepRecord = {
    step: s.index,
    tool: env?.tool ?? tool,
    command: env?.command ?? commandWords(words),
    argv: [...s.argv],
    exit: s.exit,
    ok: env?.ok === true && s.exit === 0,
    schema: env?.meta.schema ?? null,
    outcome: env?.meta.outcome ?? null,
    duration_ms: Math.round(s.durationMs),
    cost_usd: env?.meta.cost_usd ?? 0,
    llm_tokens: env?.meta.llm_tokens ?? 0,
    data: env?.ok ? env.data : null,
    remedy: null,
  };
  if (!record.ok && error) record.remedy = REDISPATCH_CODES.has(String(error.code)) ? "re-dispatch" : error.retryable === true ? "retry" : null;
  return { record, error: record.ok ? null : error };
}

export function foldJob(p: { jobId: string; eventId: string; runs: readonly StepRun[]; notRun: number; cancelled: boolean; artifacts: readonly ArtifactRef[] }): JobReport {
  const folded = p.runs.map(recordOf);
  const steps = folded.map((f) => f.record);
  const okCount = steps.filter((s) => s.ok).length;
  const status: JobStatus = okCount === 0 ? "failed" : okCount === steps.length && p.notRun === 0 && !p.cancelled ? "succeeded" : "partial";
  return {
    job_id: p.jobId,
    event_type: "job.completed",
    event_id: p.eventId,
    status,
    cancelled: p.cancelled,
    steps,
    not_run: p.notRun,
    cost_usd: roundUsd(steps.reduce((sum, s) => sum + s.cost_usd, 0)),
    llm_tokens: steps.reduce((sum, s) => sum + s.llm_tokens, 0),
    errors: folded.flatMap((f) => (f.error ? [{ step: f.record.step, tool: f.record.tool, command: f.record.command, error: f.error }] : [])),
    next: p.runs.flatMap((s) => (s.envelope?.ok && s.envelope.meta.next?.length ? [{ step: s.index, commands: [...s.envelope.meta.next] }] : [])),
    artifacts: [...p.artifacts],
  };
}
