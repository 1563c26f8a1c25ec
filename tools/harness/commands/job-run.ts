/** What `harness job execute` does before and after its steps: the job read and checked, the dry run's answer, the report folded and sent out. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { KitError } from "agent-cli-kit";
import { type ArtifactRef, deliver, foldJob, type JobReport, type StepRun } from "agent-cli-kit/harness";
import {
  deliverSecrets,
  fleetTools,
  type issuedSecrets,
  parseJob,
  refuseOwnSecrets,
  stepArgv,
} from "agent-cli-kit/harness";
import { OWN_SECRETS, SECRET_ENV } from "./shared.ts";

type Job = ReturnType<typeof parseJob>;

/**
 * The job file at `path`, its steps' tools checked against the fleet's, and no step handed one of the harness's
 * own secrets (`env`'s values of OWN_SECRETS); a job that delivers needs `secret` to sign with.
 */
export function jobAt(
  path: string,
  secret: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Job {
  if (!existsSync(path))
    throw new KitError("NOT_FOUND", `no job file at ${path}`, { hint: "give --job the path of a job's JSON file" });
  const job = parseJob(readFileSync(path, "utf8"), path, fleetTools());
  refuseOwnSecrets(job, env, OWN_SECRETS);
  if (job.delivery && !secret)
    throw new KitError("MISSING_ENV", `${SECRET_ENV} is not set, and the job delivers its report`, {
      hint: `set ${SECRET_ENV}: the report is signed with it`,
    });
  return job;
}

/** The report with every secret the harness knows masked: the form it is written, stored, delivered and rendered in. */
export const redactedReport = (report: JobReport, redact: (text: string) => string): JobReport =>
  JSON.parse(redact(JSON.stringify(report))) as JobReport;

/** The job's report from its step runs so far. */
export const folderOf =
  (job: Job) =>
  (runs: readonly StepRun[], notRun: number, cancelled: boolean, artifacts: readonly ArtifactRef[] = []): JobReport =>
    foldJob({ jobId: job.id, eventId: job.eventId, runs, notRun, cancelled, artifacts });

/** A dry run's answer: the job and the environment are checked; no step runs, nothing is stored or delivered. */
export function dryRunAnswer(job: Job, runDir: string) {
  const report = foldJob({
    jobId: job.id,
    eventId: job.eventId,
    runs: [],
    notRun: job.steps.length,
    cancelled: false,
    artifacts: [],
  });
  return {
    ...report,
    status: "dry-run" as const,
    report: join(runDir, "report.json"),
    delivered: null,
    secrets_delivered: null,
    dry_run: true,
    would_run: job.steps.map((s) => stepArgv(s.argv, runDir, s.input !== undefined)),
  };
}

/**
 * The job's results out: a register-once secret to the platform's secret
 * sink first (contract §10: it cannot be asked for again; never into the
 * report), then the report. A failure is kept to throw after, not thrown.
 */
export async function sendOut(
  job: Job,
  report: JobReport,
  issued: ReturnType<typeof issuedSecrets>,
  cancelled: boolean,
  o: { secret: string; now: () => number; signal: AbortSignal; redact: (text: string) => string },
) {
  let failure: unknown = null;
  const sent = await deliverSecrets(job.delivery?.secrets_url, job.id, issued, {
    secret: o.secret,
    eventId: `${job.eventId}.secrets`,
    now: o.now,
    signal: o.signal,
    redact: o.redact,
  }).catch((e: unknown) => ((failure = e), null));
  let delivered = null;
  if (job.delivery) {
    // After a cancellation the report still goes out, on a short clock of its own; a second signal stops that too.
    delivered = await deliver(job.delivery.url, JSON.stringify(report), {
      secret: o.secret,
      eventId: job.eventId,
      now: o.now,
      signal: cancelled ? AbortSignal.timeout(20_000) : o.signal,
      redact: o.redact,
      ...(cancelled ? { attempts: 3, timeoutMs: 5_000 } : {}),
    }).catch((e: unknown) => ((failure = e), null));
  }
  return { sent, delivered, failure };
}
