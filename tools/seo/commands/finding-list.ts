import * as z from "agent-cli-kit/schema";
import { defineCommand } from "agent-cli-kit";
import type { AuditData } from "../lib/artifacts.ts";
import { findingFilterFlags } from "../lib/filter-flags.ts";
import { finding } from "../lib/schemas.ts";

export default defineCommand({
  resource: "finding",
  verb: "list",
  tier: 1,
  rw: "read",
  summary: "List the audit's findings, highest severity first, filtered by severity, rule or page.",
  flags: z.object(findingFilterFlags),
  result: z.object({ items: z.array(finding) }),
  schema: "seo.finding.list@1",
  errors: ["MISSING_ARTIFACT", "INVALID_ARTIFACT"],
  list: { defaultLimit: 20 },
  examples: [{ argv: ["--run-dir", "./run", "--rule", "broken-link"], summary: "Every broken internal link." }],
  async run(ctx) {
    const audited = ctx.runDir.read<AuditData>("audit").data;
    const { findingsPage } = await import("../lib/findings.ts");
    const shown = findingsPage(ctx.runDir.path, audited, ctx.flags, ctx.page!);
    ctx.setOutcome({ realized: shown.total });
    return { items: ctx.paginate(shown, "findings") };
  },
});
