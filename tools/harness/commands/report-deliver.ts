import * as z from "agent-cli-kit/schema";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { defineCommand, describe, KitError } from "agent-cli-kit";
import { deliver } from "agent-cli-kit/harness";
import { DELIVERY_FILE, SECRET, SECRET_ENV } from "./shared.ts";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A kept report.json (the file, or the run dir that holds it), and the delivery target `job execute` wrote beside it. */
function keptReport(ref: string, cwd: string): { path: string; report: Record<string, unknown>; url: string | null } {
  let path = resolve(cwd, ref);
  if (existsSync(path) && statSync(path).isDirectory()) path = join(path, "report.json");
  if (!existsSync(path))
    throw new KitError("NOT_FOUND", `no job report at ${path}`, {
      hint: "give --report the report.json `harness job execute` wrote, or its run dir",
    });
  let report: unknown;
  try {
    report = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new KitError("INVALID_INPUT", `${path} is not JSON: ${(e as Error).message}`, {
      hint: "give the report.json `harness job execute` wrote",
    });
  }
  if (
    !isObject(report) ||
    typeof report.job_id !== "string" ||
    typeof report.event_id !== "string" ||
    report.event_id === ""
  )
    throw new KitError("INVALID_INPUT", `${path} is not a job report: it has no job_id and event_id`, {
      hint: "give the report.json `harness job execute` wrote",
    });
  const beside = join(dirname(path), DELIVERY_FILE);
  let url: string | null = null;
  try {
    const d = JSON.parse(readFileSync(beside, "utf8")) as { url?: unknown; event_id?: unknown };
    if (typeof d.url === "string" && d.event_id === report.event_id) url = d.url;
  } catch {}
  return { path, report, url };
}

export default defineCommand({
  resource: "report",
  verb: "deliver",
  tier: 2,
  rw: "write",
  summary: "Deliver a kept job report again, signed, with its own event id: the receiver stores it once.",
  description:
    "Reads the report.json `harness job execute` wrote (--report, the file or its run dir) and POSTs it signed with AGENT_HARNESS_SECRET to --url, else to the job's delivery target recorded beside it (delivery.json). The event id is the report's own, so a report the receiver already has is refused as a replay (CONFLICT, status 409) and never stored twice. Retried on 5xx, 408, 429 (honouring Retry-After) and timeouts; a redirect is not followed.",
  flags: z.object({
    report: describe(z.string().check(z.minLength(1)), "The kept report.json, or the run dir that holds it."),
    url: describe(
      z.optional(z.string().check(z.minLength(1))),
      "Where to POST it (default: the job's delivery target, from delivery.json beside the report).",
    ),
  }),
  result: z.object({
    report: z.string(),
    job_id: z.string(),
    event_id: z.string(),
    status: describe(z.string(), "The report's status (succeeded, partial, failed, cancelled)."),
    delivered: z.object({ url: z.string(), attempts: z.int(), status: z.int() }),
  }),
  schema: "harness.report.deliver@1",
  errors: ["NOT_FOUND", "INVALID_INPUT", "INVALID_VALUE", "MISSING_FLAG", "UPSTREAM_ERROR", "CONFLICT"],
  env: [{ ...SECRET, required: true }],
  examples: [
    { argv: ["--report", "./run"], summary: "Deliver the report kept in ./run to its job's delivery target." },
    {
      argv: ["--report", "./run/report.json", "--url", "https://platform.example/reports"],
      summary: "Deliver it to a given URL.",
    },
  ],
  async run(ctx) {
    const kept = keptReport(ctx.flags.report, ctx.cwd);
    const url = ctx.flags.url ?? kept.url;
    if (!url)
      throw new KitError("MISSING_FLAG", `--url is required: no delivery target is recorded beside ${kept.path}`, {
        hint: "add --url https://…, where the report goes",
      });
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      throw new KitError("INVALID_VALUE", `--url must be an http(s) URL (got: '${url}')`, { got: url });
    const eventId = kept.report.event_id as string;
    if (ctx.dryRun)
      return {
        report: kept.path,
        job_id: kept.report.job_id as string,
        event_id: eventId,
        status: String(kept.report.status),
        delivered: { url, attempts: 0, status: 0 },
      };
    const delivered = await deliver(url, ctx.redact(JSON.stringify(kept.report)), {
      secret: ctx.env[SECRET_ENV]!,
      eventId,
      now: ctx.now,
      signal: ctx.signal,
      redact: ctx.redact,
    });
    return {
      report: kept.path,
      job_id: kept.report.job_id as string,
      event_id: eventId,
      status: String(kept.report.status),
      delivered,
    };
  },
});
