/**
 * The seam (contract §12): the envelopes of a job's steps folded into one
 * job response. Pure: the same steps give the same response, which the
 * harness-conformance test holds to a table.
 */
import { REDISPATCH_CODES, roundUsd } from "../../kit/output/index.ts";
import type { ArtifactRef } from "./artifacts.ts";

/** What the harness saw of one step: its argv, how it exited, the envelope it printed (null: none). */
export interface StepRun {
  readonly index: number;
  readonly argv: readonly string[];
  readonly exit: number;
  readonly envelope: StepEnvelope | null;
  /** When there is no envelope: why (what it printed instead, or that it never ran to the end). */
  readonly problem?: string;
  /** The problem is an envelope that breaks the contract (not a missing one). */
  readonly malformed?: boolean;
  readonly durationMs: number;
  /** The signal that ended the step's process, if one did. */
  readonly signal?: string | null;
  /** Ended by the harness: at its time limit (limitMs), or on cancellation. */
  readonly stopped?: "time-limit" | "cancelled" | null;
  readonly limitMs?: number;
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
  /** Why it failed (null when it succeeded): the same object as its entry in errors[]. */
  error: Readonly<Record<string, unknown>> | null;
  /** The signal that ended its process (a time limit's or cancellation's, or another), else null. */
  signal: string | null;
  stopped: "time-limit" | "cancelled" | null;
  /** What the platform should do about a failure: re-dispatch with fresh credentials, retry as it is, or neither. */
  remedy: Remedy;
}

export type JobStatus = "succeeded" | "partial" | "failed" | "cancelled";

export interface JobReport {
  job_id: string;
  event_type: "job.completed";
  event_id: string;
  /** cancelled: stopped by a signal; partial: some step failed or did not run, or an artifact could not be stored. */
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

const signalled = (s: StepRun): string => (s.signal ? ` by ${s.signal}` : "");

/** Why a step failed, when it did: the harness's own finding first (it stopped the step, or the envelope lies), then the tool's. */
function errorOf(s: StepRun): Readonly<Record<string, unknown>> | null {
  const env = s.envelope;
  if (s.stopped === "time-limit")
    return {
      code: "UPSTREAM_TIMEOUT",
      message: `the step ran past its time limit of ${(s.limitMs ?? 0) / 1000} s and was ended${signalled(s)}`,
      retryable: true,
    };
  if (s.stopped === "cancelled")
    return {
      code: "CANCELLED",
      message: `the job was cancelled while the step ran; it was ended${signalled(s)}`,
      retryable: true,
    };
  if (!env && s.malformed)
    return {
      code: "UPSTREAM_ERROR",
      message: s.problem ?? "the step's envelope breaks the contract",
      retryable: false,
    };
  if (!env)
    return {
      code: "INTERNAL",
      message: `the step printed no envelope: ${s.problem ?? "nothing on stdout"}${s.signal ? ` (killed by ${s.signal})` : ""}`,
      retryable: false,
    };
  if (!env.ok) return env.error ?? { code: "INTERNAL", message: "the step failed without an error", retryable: false };
  if (s.exit !== 0)
    return {
      code: "UPSTREAM_ERROR",
      message: `the step printed ok: true but exited ${s.exit}${s.signal ? ` (killed by ${s.signal})` : ""}`,
      retryable: false,
    };
  return null;
}

function recordOf(s: StepRun): StepRecord {
  const env = s.envelope;
  const [tool = "", ...words] = s.argv;
  const error = errorOf(s);
  return {
    step: s.index,
    tool: env?.tool ?? tool,
    command: env?.command ?? commandWords(words),
    argv: [...s.argv],
    exit: s.exit,
    ok: error === null,
    schema: env?.meta.schema ?? null,
    outcome: env?.meta.outcome ?? null,
    duration_ms: Math.max(0, Math.round(s.durationMs)),
    cost_usd: env?.meta.cost_usd ?? 0,
    llm_tokens: env?.meta.llm_tokens ?? 0,
    data: error === null ? (env!.data ?? null) : null,
    error,
    signal: s.signal ?? null,
    stopped: s.stopped ?? null,
    remedy:
      error === null
        ? null
        : REDISPATCH_CODES.has(String(error.code))
          ? "re-dispatch"
          : error.retryable === true
            ? "retry"
            : null,
  };
}

export function foldJob(p: {
  jobId: string;
  eventId: string;
  runs: readonly StepRun[];
  notRun: number;
  cancelled: boolean;
  artifacts: readonly ArtifactRef[];
}): JobReport {
  const steps = p.runs.map(recordOf);
  const okCount = steps.filter((s) => s.ok).length;
  const whole = okCount === steps.length && p.notRun === 0 && p.artifacts.every((a) => a.location !== "unstored");
  const status: JobStatus = p.cancelled ? "cancelled" : okCount === 0 ? "failed" : whole ? "succeeded" : "partial";
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
    errors: steps.flatMap((s) => (s.error ? [{ step: s.step, tool: s.tool, command: s.command, error: s.error }] : [])),
    next: p.runs.flatMap((s, i) =>
      steps[i]!.ok && s.envelope?.meta.next?.length ? [{ step: s.index, commands: [...s.envelope.meta.next] }] : [],
    ),
    artifacts: [...p.artifacts],
  };
}
