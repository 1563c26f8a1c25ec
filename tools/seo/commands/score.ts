import * as z from "agent-cli-kit/schema";
import { defineCommand, describe } from "agent-cli-kit";
import type { AuditData, ExtractData, ScoreData } from "../lib/artifacts.ts";
import { categoryScore } from "../lib/schemas.ts";

export default defineCommand({
  verb: "score",
  tier: 2,
  rw: "read",
  summary: "Score the audited site 0–100, overall and per category; write score.json.",
  description:
    "Each rule scores the share of applicable pages that pass it, weighted by severity (high 3, medium 2, low 1); a category is the weighted mean of its rules, scaled down by the share of pages with a canonical that is not http(s) (such a page fails its whole category), and the overall score the weighted mean of the categories. Deterministic: the same audit gives the same score. Reads audit.json and extract.json; run `audit` first.",
  flags: z.object({}),
  result: z.object({
    score: describe(z.number(), "0–100, higher is better."),
    grade: describe(z.enum(["A", "B", "C", "D", "F"]), "A ≥ 90, B ≥ 80, C ≥ 70, D ≥ 50, else F."),
    pages: z.number(),
    categories: z.array(categoryScore),
    dry_run: z.boolean(),
    artifact: z.nullable(z.string()),
  }),
  schema: "seo.score@1",
  errors: ["MISSING_ARTIFACT", "INVALID_ARTIFACT"],
  stage: { writes: "score", reads: ["audit", "extract"] },
  outcome: "pct",
  examples: [{ argv: ["--run-dir", "./run"], summary: "Score the audit in ./run." }],
  async run(ctx) {
    const audited = ctx.runDir.read<AuditData>("audit").data;
    const site = ctx.runDir.read<ExtractData>("extract").data;
    const { scoreSite, grade } = await import("../lib/score.ts");
    const { listedPages } = await import("../lib/page-index.ts");
    const { sectionsOf } = await import("../lib/findings.ts");
    const counts = { all: 0, content: 0 };
    for (const p of listedPages(ctx.runDir.path, site)) {
      counts.all++;
      if (p.content) counts.content++;
    }
    // Each rule's count and pages are in audit.json: the findings themselves are not read.
    const scored: ScoreData = scoreSite(sectionsOf(audited), counts);
    const written = ctx.dryRun ? null : ctx.runDir.write("score", scored);
    ctx.setOutcome({ realized: scored.score, confidence: 1 });
    return {
      score: scored.score,
      grade: grade(scored.score),
      pages: counts.all,
      categories: scored.categories as never,
      dry_run: ctx.dryRun,
      artifact: written?.path ?? null,
    };
  },
});
