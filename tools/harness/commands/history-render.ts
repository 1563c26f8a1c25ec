import * as z from "agent-cli-kit/schema";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { defineCommand, describe, KitError } from "agent-cli-kit";
import { renderHistory, renderJobHistory, type JobSummary } from "agent-cli-kit/harness";
import { actionLog, LEDGER_ENV, readPlanFile, resolvePlanPath } from "agent-cli-kit/writes";

/** A job's report.json, given as the file or the run dir that holds it. */
function readReport(ref: string, cwd: string): { path: string; job: JobSummary } {
  let path = resolve(cwd, ref);
  if (existsSync(path) && statSync(path).isDirectory()) path = join(path, "report.json");
  if (!existsSync(path))
    throw new KitError("NOT_FOUND", `no job report at ${path}`, {
      hint: "give --job the report.json `harness job execute` wrote, or its run dir",
    });
  try {
    const job = JSON.parse(readFileSync(path, "utf8")) as JobSummary;
    if (typeof job.job_id !== "string" || !Array.isArray(job.steps) || !Array.isArray(job.errors))
      throw new Error("not a job report");
    return { path, job };
  } catch (e) {
    throw new KitError("INVALID_INPUT", `${path} is not a job report: ${(e as Error).message}`, {
      hint: "give the report.json `harness job execute` wrote",
    });
  }
}

export default defineCommand({
  resource: "history",
  verb: "render",
  tier: 2,
  rw: "read",
  summary:
    "Render the history.html and timeline.html of a plan, or of a job and the plan it applied, from the action log, through a trusted template.",
  description:
    "For --plan, reads the plan and its action log (the ledger beside the plan, or AGENT_LEDGER_URL): history.html has one entry per item, its outcome and audit path (plan → approval → ledger key → log); timeline.html every log row in time order. For --job (a report.json, or its run dir), the job's steps come first, then the plan in its run dir. The pages are written into the run dir. Everything a tool wrote is escaped, and the pages run no script.",
  flags: z.object({
    plan: describe(
      z.optional(z.string().check(z.minLength(1))),
      "The plan: a plan.json path, or the run dir that holds it.",
    ),
    job: describe(z.optional(z.string().check(z.minLength(1))), "A job's report.json, or the run dir that holds it."),
  }),
  result: z.object({
    history: z.string(),
    timeline: z.string(),
    items: z.int(),
    entries: describe(z.int(), "Action-log rows rendered."),
  }),
  schema: "harness.history.render@1",
  errors: ["NOT_FOUND", "MISSING_ARTIFACT", "PLAN_INVALID", "INVALID_INPUT", "UPSTREAM_ERROR"],
  env: [
    {
      name: LEDGER_ENV,
      scope: "config",
      description:
        "The ledger to read the action log from: a postgres:// URL, or a SQLite file (default: ledger.sqlite beside the plan).",
    },
  ],
  examples: [
    {
      argv: ["--plan", "./run", "--run-dir", "./pages"],
      summary: "Render the history of the plan in ./run into ./pages.",
    },
    { argv: ["--job", "./job-run/report.json"], summary: "Render a job's history." },
  ],
  async run(ctx) {
    const { plan: planRef, job: jobRef } = ctx.flags;
    if (planRef && jobRef)
      throw new KitError("CONFLICTING_FLAGS", "give --plan or --job, not both", {
        hint: "--job renders the plan in the job's run dir too",
      });
    if (!planRef && !jobRef)
      throw new KitError("MISSING_FLAG", "--plan or --job is required", {
        hint: "add --plan ./run, or --job ./run/report.json",
      });
    const report = jobRef ? readReport(jobRef, ctx.cwd) : null;
    const planPath = planRef ? resolvePlanPath(planRef, ctx.cwd) : join(dirname(report!.path), "plan.json");
    const plan = planRef || existsSync(planPath) ? readPlanFile(planPath, null) : null;
    const rows = plan ? await actionLog(ctx.env[LEDGER_ENV], planPath, { plan: plan.checksum }, ctx) : [];
    const pages = report ? renderJobHistory(report.job, plan, rows) : renderHistory(plan!, rows);
    ctx.runDir.create();
    const history = join(ctx.runDir.path, "history.html");
    const timeline = join(ctx.runDir.path, "timeline.html");
    // Rows and reports a step wrote, with secrets it could not mask: the pages pass the redactor as any output does.
    writeFileSync(history, ctx.redact(pages.history));
    writeFileSync(timeline, ctx.redact(pages.timeline));
    return { history, timeline, items: plan?.items.length ?? 0, entries: rows.length };
  },
});
