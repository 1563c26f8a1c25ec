import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError } from "agent-cli-kit";
import { PLAN_LIST, planResult, ttlFlag, writePlan } from "agent-cli-kit/writes";
import type { Skipped } from "../lib/plan-scope.ts";
import type { AuditData, ExtractData } from "../lib/artifacts.ts";
import { FIX_ACTIONS } from "../lib/fix-actions.ts";
import { boundSkipped, SKIPPED_SHOWN } from "../lib/plan-scope.ts";

export default defineCommand({
  verb: "plan",
  tier: 1,
  rw: "write",
  summary:
    "Plan fixes for a static-site folder's findings: precise edits to its files, written to plan.json; nothing is changed.",
  description:
    "Reads audit.json and extract.json from the run dir (a crawl of a folder, by --dir). Plans: a missing lang, a missing viewport, a missing or duplicate canonical, a missing meta description (from the page's own text), and broken internal links with one clear correct target. Each item is a minimal edit that leaves the rest of the file byte-for-byte unchanged. Every finding in scope it cannot fix is in `skipped` with its reason. --finding or --page plans one fix or one page's. A run dir whose plan is not yet applied is refused (CONFLICT) unless --force. Next: `gate review --plan RUN_DIR`, then `seo apply --plan RUN_DIR`.",
  flags: z.object({
    lang: describe(
      z.optional(z.string().check(z.regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/))),
      "The language to set where <html> has none (default: the one most pages use, else en).",
    ),
    only: describe(z.optional(z.array(z.enum(FIX_ACTIONS))), "Plan only these kinds of fix."),
    finding: describe(
      z.optional(z.array(z.string().check(z.minLength(1)))),
      "Plan only the fix for this finding (its id, as `finding list` shows it); repeat for more.",
    ),
    page: describe(
      z.optional(z.string().check(z.minLength(1))),
      "Plan only this page's fixes (its URL, as `page list` shows it).",
    ),
    ttl: ttlFlag,
  }),
  result: z.extend(planResult, {
    skipped: describe(
      z.optional(
        z.array(
          z.object({
            file: z.string(),
            action: z.nullable(z.enum(FIX_ACTIONS)),
            reason: z.string(),
            finding: z.optional(z.string()),
          }),
        ),
      ),
      `Findings in the plan's scope it has no fix for, and why (no clear target for a broken link; a page in an encoding seo does not edit; too little prose for a description): the first ${SKIPPED_SHOWN}; plan.json holds them all.`,
    ),
    skipped_count: describe(
      z.optional(z.object({ total: z.number(), by_action: z.record(z.string(), z.number()) })),
      "How many were skipped, in all and per kind of fix.",
    ),
  }),
  list: PLAN_LIST,
  schema: "seo.plan@1",
  next: ["gate review --plan {run_dir}"],
  errors: ["MISSING_ARTIFACT", "INVALID_ARTIFACT", "INVALID_INPUT", "PLAN_INVALID", "CONFLICT", "NOT_FOUND"],
  stage: { writes: "plan", reads: ["extract", "audit"] },
  examples: [{ argv: ["--run-dir", "./run"], summary: "Plan every fix the audit in ./run supports." }],
  async run(ctx) {
    let skipped: Skipped[] = [];
    const result = await writePlan(
      ctx,
      async () => {
        const extract = ctx.runDir.read<ExtractData>("extract").data;
        const audit = ctx.runDir.read<AuditData>("audit").data;
        if (extract.source.kind !== "dir")
          throw new KitError(
            "INVALID_INPUT",
            "seo plans fixes for a folder crawled with --dir; this run crawled a live site",
            { hint: "crawl the site's source folder: `seo crawl --dir ./public`" },
          );
        const { planSite } = await import("../lib/plan-run.ts");
        // Page by page, beside each page's findings: neither the pages nor the findings are held.
        const scope = {
          only: ctx.flags.only,
          findings: ctx.flags.finding ? new Set(ctx.flags.finding) : null,
          page: ctx.flags.page ?? null,
        };
        const planned = planSite(ctx.runDir.path, extract, audit, ctx.flags.lang, scope, (n) =>
          ctx.progress("planned pages", n, extract.pages_file?.count ?? extract.page_count),
        );
        skipped = planned.skipped;
        return {
          context: { root: extract.source.dir, base_url: extract.source.base_url, skipped },
          items: planned.items,
        };
      },
      ctx.flags.ttl,
    );
    ctx.setOutcome({ projected: result.total });
    // Bounded as the items are: plan.json's context holds every skip.
    return { ...result, ...boundSkipped(skipped) };
  },
});
