import * as z from "agent-cli-kit/schema";
import { defineCommand, describe } from "agent-cli-kit";
import type { ExtractData } from "../lib/artifacts.ts";
import { findingFilterFlags } from "../lib/filter-flags.ts";
import { finding } from "../lib/schemas.ts";

const summarySchema = z.object({
  pages: z.number(),
  findings: describe(z.number(), "All findings, before filters."),
  pages_with_findings: z.number(),
  by_severity: z.object({ high: z.number(), medium: z.number(), low: z.number() }),
  by_rule: z.record(z.string(), z.number()),
});

export default defineCommand({
  verb: "audit",
  tier: 2,
  rw: "read",
  summary: "Check every extracted page against the SEO rules; write audit.json and list findings, worst first.",
  description:
    "Rules cover status codes, indexability (robots, noindex, canonical), titles and descriptions (missing, length, duplicates), headings, thin content, links (broken, uncrawlable, vague text), image alt, lang and hreflang, and viewport. The summary counts every finding; the list is filtered by --severity/--rule/--url and paged. Reads extract.json; run `extract` first.",
  flags: z.object(findingFilterFlags),
  result: z.object({
    summary: summarySchema,
    items: describe(z.array(finding), "Findings matching the filters, highest severity first; one page of them."),
    dry_run: z.boolean(),
    artifact: z.nullable(z.string()),
  }),
  schema: "seo.audit@1",
  errors: ["MISSING_ARTIFACT", "INVALID_ARTIFACT"],
  stage: { writes: "audit", reads: ["extract"] },
  list: { defaultLimit: 20 },
  outcome: "count",
  examples: [
    { argv: ["--run-dir", "./run", "--severity", "high"], summary: "Audit, showing only high-severity findings." },
  ],
  async run(ctx) {
    const site = ctx.runDir.read<ExtractData>("extract").data;
    const { auditStage } = await import("../lib/audit-stage.ts");
    const { findingsPage, sectionsOf } = await import("../lib/findings.ts");
    const { removeStale } = await import("../lib/page-store.ts");
    const dir = ctx.runDir.path;
    const audited = auditStage(
      dir,
      site,
      (t) => ctx.runDir.redact(t),
      ctx.dryRun,
      ctx.now(),
      (n) => ctx.progress("audited pages", n, site.pages_file?.count ?? site.page_count),
    );
    try {
      const written = ctx.dryRun ? null : ctx.runDir.write("audit", audited.data);
      if (written) removeStale(dir, "audit", audited.data.findings_file!.file, "findings");
      const { counts } = audited;
      ctx.setOutcome({ realized: counts.findings, confidence: 1 });
      const byRule = Object.fromEntries(sectionsOf(audited.data).map((s) => [s.rule, s.count]));
      return {
        summary: { ...counts, by_rule: byRule },
        items: ctx.paginate(findingsPage(audited.dir, audited.data, ctx.flags, ctx.page!), "findings"),
        dry_run: ctx.dryRun,
        artifact: written?.path ?? null,
      };
    } finally {
      audited.discard();
    }
  },
});
