import * as z from "agent-cli-kit/schema";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { defineCommand, describe, KitError } from "agent-cli-kit";
import { routeArtifacts, storageOf } from "agent-cli-kit/harness";
import type { JobReport } from "agent-cli-kit/harness";
import { runSteps } from "agent-cli-kit/harness";
import { issuedSecrets } from "agent-cli-kit/harness";
import { dryRunAnswer, folderOf, jobAt, redactedReport, sendOut } from "./job-run.ts";
import { DELIVERY_FILE, OWN, SECRET, SECRET_ENV, STORAGE } from "./shared.ts";

const usd = z.number().check(z.minimum(0));
const tokens = z.int().check(z.minimum(0));

const step = z.object({
  step: z.int(),
  tool: z.string(),
  command: z.string(),
  argv: z.array(z.string()),
  exit: z.int(),
  ok: z.boolean(),
  schema: z.nullable(z.string()),
  outcome: z.unknown(),
  duration_ms: z.number(),
  cost_usd: usd,
  llm_tokens: tokens,
  data: describe(
    z.unknown(),
    "The step's envelope data (null when it failed): what the receiver validates against its schema.",
  ),
  error: describe(
    z.nullable(z.record(z.string(), z.unknown())),
    "Why the step failed ({ code, message, … }); null when it succeeded.",
  ),
  signal: describe(
    z.nullable(z.string()),
    "The signal that ended the step's process (e.g. SIGTERM at its time limit), else null.",
  ),
  stopped: describe(
    z.nullable(z.enum(["time-limit", "cancelled"])),
    "Ended by the harness: at the step's time limit, or on cancellation; null when it ended by itself.",
  ),
  remedy: describe(
    z.nullable(z.enum(["re-dispatch", "retry"])),
    "For a failed step: re-dispatch (a dead credential: the job needs fresh credentials, and its ledger keeps anything from happening twice), retry (a passing failure), or null (fix the input, or a person decides).",
  ),
});

const artifact = z.object({
  name: z.string(),
  type: z.string(),
  bytes: z.int(),
  sha256: z.string(),
  url: z.nullable(z.string()),
  path: describe(z.string(), "Its path in the run dir, where it stays whatever the storage does."),
  location: describe(
    z.enum(["storage", "run-dir", "unstored"]),
    "storage: uploaded (url); run-dir: kept there by type or without storage; unstored: the storage refused it (problem says why).",
  ),
  problem: z.nullable(z.string()),
});

const result = z.object({
  job_id: z.string(),
  event_type: z.string(),
  event_id: describe(z.string(), "Derived from the job's id and steps: the same job run again is the same event."),
  status: describe(
    z.enum(["succeeded", "partial", "failed", "cancelled", "dry-run"]),
    "succeeded: every step ran and succeeded and every artifact is stored; failed: none succeeded; cancelled: a signal stopped it; partial: the rest; dry-run: nothing ran (--dry-run).",
  ),
  cancelled: z.boolean(),
  steps: z.array(step),
  not_run: tokens,
  cost_usd: usd,
  llm_tokens: tokens,
  errors: z.array(
    z.object({ step: z.int(), tool: z.string(), command: z.string(), error: z.record(z.string(), z.unknown()) }),
  ),
  next: z.array(z.object({ step: z.int(), commands: z.array(z.string()) })),
  artifacts: z.array(artifact),
  report: describe(
    z.optional(z.string()),
    "report.json in the run dir: the report as delivered (which carries none of the fields from here on).",
  ),
  delivered: describe(
    z.optional(z.nullable(z.object({ url: z.string(), attempts: z.int(), status: z.int() }))),
    "Where the signed report was posted, after how many attempts; null without a delivery target.",
  ),
  secrets_delivered: describe(
    z.optional(
      z.nullable(z.object({ url: z.string(), attempts: z.int(), status: z.int(), names: z.array(z.string()) })),
    ),
    "Register-once secrets the steps issued, posted signed to delivery.secrets_url (their names only; the values are in no report); null when none was issued.",
  ),
  dry_run: z.optional(z.boolean()),
  would_run: describe(
    z.optional(z.array(z.array(z.string()))),
    "With --dry-run: each step's argv as it would run (nothing ran, nothing was stored or delivered); else empty.",
  ),
});

/** The job's report, written before anything can fail to deliver it: nothing is lost. Beside it, where it goes, for `report deliver`. */
function writeReport(runDir: string, report: JobReport, delivery: { url: string } | null): string {
  const path = join(runDir, "report.json");
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  if (delivery)
    writeFileSync(join(runDir, DELIVERY_FILE), `${JSON.stringify({ url: delivery.url, event_id: report.event_id })}\n`);
  return path;
}

export default defineCommand({
  resource: "job",
  verb: "execute",
  tier: 2,
  rw: "write",
  summary:
    "Run a job's steps (fleet tools, as argv arrays) in one run dir, fold their envelopes into one report, store its artifacts, and deliver it signed.",
  description:
    "A job file is { id, steps: [{ argv: [\"seo\", \"audit\"], input?: {…flags}, continue_on_error?: false, timeout_seconds? }], run_dir?, delivery?: { url, secrets_url? }, timeout_seconds?: 900, grace_seconds?: 5 }. Steps run in order in one run dir (the job's run_dir, else --run-dir), each with --json --no-input and its input on stdin (--params -), each in a process group of its own under a time limit (the step's timeout_seconds, else the job's); at the limit, on a signal, or when a step leaves processes behind, the whole group gets TERM, then KILL after grace_seconds. A failed step stops the job unless it continues on error. A step's envelope is checked against the contract before it is folded: one that breaks it (a cost that is not a number, a schema of another tool) is a failed step. The report sums cost and tokens, lists each step's errors and next commands, and references artifacts by URL and sha256 (an artifact the storage refused is listed as unstored, with its path); it is always written to report.json and, with a delivery target, POSTed signed with AGENT_HARNESS_SECRET, retried on 5xx, 408, 429 (honouring Retry-After, at most 30 s) and timeouts, never sent on after a redirect. Its event id derives from the job's id and steps, so running the same job again is the same event, and `harness report deliver` sends a kept report again. A register-once secret a step returns (meta.secrets_out) is posted, signed the same way, to delivery.secrets_url only, and is in no report; a failed step's remedy says re-dispatch (a dead credential) or retry. A signal stops the running step; the report (status cancelled) is written and delivered, then CANCELLED answers with it in its detail. With --dry-run, the job and the environment are checked and each step's argv listed; nothing runs.",
  flags: z.object({ job: describe(z.string().check(z.minLength(1)), "The job file (JSON).") }),
  result,
  schema: "harness.job.execute@1",
  errors: ["NOT_FOUND", "INVALID_INPUT", "UPSTREAM_ERROR", "MISSING_ENV", "CONFLICT"],
  env: [SECRET, ...STORAGE],
  outcome: "count",
  examples: [{ argv: ["--job", "job.json"], summary: "Run the job in job.json and deliver its report." }],
  async run(ctx) {
    const secret = ctx.env[SECRET_ENV];
    const job = jobAt(resolve(ctx.cwd, ctx.flags.job), secret, ctx.env);
    const storage = storageOf(ctx.env); // a half-configured storage fails before any step runs, not after
    const runDir = job.runDir ?? ctx.runDir.path;
    if (ctx.dryRun) {
      ctx.setOutcome({ projected: job.steps.length, realized: null, confidence: 1 });
      return dryRunAnswer(job, runDir);
    }
    mkdirSync(runDir, { recursive: true });
    const env = Object.fromEntries(Object.entries(ctx.env).filter(([k]) => !OWN.has(k)));
    const fold = folderOf(job);
    // A signal waits for this: the report is written and delivered before CANCELLED answers.
    const { promise: settled, resolve: settle } = Promise.withResolvers<void>();
    ctx.windDown(settled);
    try {
      const { runs, notRun, cancelled } = await runSteps(job, {
        runDir,
        env,
        signal: ctx.signal,
        now: ctx.now,
        onStep: (soFar) => ctx.checkpoint({ ...fold(soFar, job.steps.length - soFar.length, true) }),
        redact: ctx.redact,
      });
      // Never throws: an artifact the storage refused is listed as unstored, with its path and sha256.
      // The steps run without the harness's own secrets and cannot mask them: what the harness folds, stores and delivers it redacts itself.
      const artifacts = await routeArtifacts(runDir, job.id, storage, ctx.signal, ctx.redact);
      const report = redactedReport(fold(runs, notRun, cancelled, artifacts), ctx.redact);
      const reportPath = writeReport(runDir, report, job.delivery);
      ctx.addCost({ usd: report.cost_usd, tokens: report.llm_tokens });
      ctx.setOutcome({ projected: job.steps.length, realized: report.steps.filter((s) => s.ok).length, confidence: 1 });
      const { sent, delivered, failure } = await sendOut(job, report, issuedSecrets(runs), cancelled, {
        secret: secret ?? "",
        now: ctx.now,
        signal: ctx.signal,
        redact: ctx.redact,
      });
      const out = {
        ...report,
        report: reportPath,
        delivered,
        secrets_delivered: sent ? { ...sent.delivered, names: sent.names } : null,
        dry_run: false,
        would_run: [],
      };
      if (cancelled) {
        ctx.checkpoint(out);
        throw new KitError("CANCELLED", "interrupted by a signal", {
          detail: out,
          hint: "re-run the job: it is the same event, and completed stages are kept in the run dir",
        });
      }
      if (failure) throw failure;
      return out;
    } finally {
      settle();
    }
  },
});
