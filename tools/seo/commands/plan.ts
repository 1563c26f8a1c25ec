import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError } from "agent-cli-kit";
import { PLAN_LIST, planResult, ttlFlag, writePlan } from "agent-cli-kit/writes";
import type { Skipped } from "../lib/plan-run.ts";
import type { AuditData, ExtractData } from "../lib/artifacts.ts";
import { FIX_ACTIONS } from "../lib/fix-actions.ts";

export default defineCommand({
  verb: "plan",
  tier: 1,
  rw: "write",
  summary:
    "Plan fixes for a static-site folder's findings: precise edits to its files, written to plan.json; nothing is changed.",
  description:
    "Reads audit.json and extract.json from the run dir (a crawl of a folder, by --dir). Plans: a missing lang, a missing viewport, a missing or duplicate canonical, a missing meta description (from the page's own text), and broken internal links with one clear correct target. Each item is a minimal edit that leaves the rest of the file byte-for-byte unchanged. Next: `gate review --plan RUN_DIR`, then `seo apply --plan RUN_DIR`.",
  flags: z.object({
    lang: describe(
      z.optional(z.string().check(z.regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/))),
      "The language to set where <html> has none (default: the one most pages use, else en).",
    ),
    only: describe(z.optional(z.array(z.enum(FIX_ACTIONS))), "Plan only these kinds of fix."),
    ttl: ttlFlag,
  }),
  result: z.extend(planResult, {
    skipped: describe(
      z.optional(z.array(z.object({ file: z.string(), action: z.nullable(z.enum(FIX_ACTIONS)), reason: z.string() }))),
      "Fixes the plan leaves out, and why (a page in an encoding seo does not edit; too little prose for a description): the first of them; plan.json's context has them all.",
    ),
    skipped_total: describe(z.optional(z.int()), "How many fixes the plan leaves out."),
  }),
  list: PLAN_LIST,
  schema: "seo.plan@1",
  next: ["gate review --plan {run_dir}"],
  errors: ["MISSING_ARTIFACT", "INVALID_ARTIFACT", "INVALID_INPUT", "PLAN_INVALID"],
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
        const planned = planSite(ctx.runDir.path, extract, audit, ctx.flags.lang, ctx.flags.only, (n) =>
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
    // Bounded as the items are: the whole list is in plan.json's context.
    return { ...result, skipped: skipped.slice(0, ctx.page?.limit), skipped_total: skipped.length };
  },
});
