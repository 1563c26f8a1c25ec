import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError, nearest } from "agent-cli-kit";
import type { AuditData } from "../lib/artifacts.ts";
import { RULES, type RuleId } from "../rules-meta.ts";
import { finding } from "../schemas.ts";

export default defineCommand({
  resource: "finding",
  verb: "get",
  tier: 1,
  rw: "read",
  summary: "Get one finding by id, with what its rule checks.",
  flags: z.object({ id: describe(z.string(), "The finding's id, as `finding list` shows it (f-…).") }),
  result: z.object({ finding, rule: z.object({ id: z.string(), title: z.string() }) }),
  schema: "seo.finding.get@1",
  errors: ["MISSING_ARTIFACT", "INVALID_ARTIFACT", "NOT_FOUND"],
  examples: [{ argv: ["--run-dir", "./run", "--id", "f-0123456789ab"], summary: "One finding in full." }],
  async run(ctx) {
    const { findings } = ctx.runDir.read<AuditData>("audit").data;
    const hit = findings.find((f) => f.id === ctx.flags.id);
    if (!hit) {
      const guess = nearest(
        ctx.flags.id,
        findings.map((f) => f.id),
      );
      throw new KitError("NOT_FOUND", `no finding has the id ${ctx.flags.id}`, {
        got: ctx.flags.id,
        hint: guess ? `did you mean ${guess}?` : "`seo finding list` shows the ids",
      });
    }
    return { finding: hit, rule: { id: hit.rule, title: RULES[hit.rule as RuleId]?.title ?? hit.rule } };
  },
});
