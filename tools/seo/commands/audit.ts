import * as z from "agent-cli-kit/schema";
import { defineCommand, describe } from "agent-cli-kit";
import type { AuditData, ExtractData } from "../lib/artifacts.ts";
import { findingFilterFlags } from "../lib/filter-flags.ts";
import { filterFindings, summarize } from "../lib/findings.ts";
import { finding } from "../schemas.ts";

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
    const { audit } = await import("../lib/rules.ts");
    const { readPages } = await import("../lib/page-store.ts");
    const { findings, pages } = audit(site, () => readPages(ctx.runDir.path, "extract", site));
    const data: AuditData = { source: site.source, pages, findings };
    const written = ctx.dryRun ? null : ctx.runDir.write("audit", data);
    const shown = filterFindings(findings, ctx.flags);
    ctx.setOutcome({ realized: findings.length, confidence: 1 });
    return {
      summary: summarize(findings, pages),
      items: ctx.paginate(shown, "findings"),
      dry_run: ctx.dryRun,
      artifact: written?.path ?? null,
    };
  },
});
