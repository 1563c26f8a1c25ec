import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError, nearest } from "agent-cli-kit";
import type { AuditData } from "../lib/artifacts.ts";
import { RULES, type RuleId } from "../lib/rules-meta.ts";
import { finding } from "../lib/schemas.ts";

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
    const audited = ctx.runDir.read<AuditData>("audit").data;
    const { readFindings } = await import("../lib/findings.ts");
    const findings = () => readFindings(ctx.runDir.path, audited);
    const hit = findings().find((f) => f.id === ctx.flags.id);
    if (!hit) {
      // The nearest of each thousand ids, then the nearest of those: never every id at once.
      const near: string[] = [];
      for (const ids of chunks(
        findings().map((f) => f.id),
        1000,
      )) {
        const n = nearest(ctx.flags.id, ids);
        if (n) near.push(n);
      }
      const guess = nearest(ctx.flags.id, near);
      throw new KitError("NOT_FOUND", `no finding has the id ${ctx.flags.id}`, {
        got: ctx.flags.id,
        hint: guess ? `did you mean ${guess}?` : "`seo finding list` shows the ids",
      });
    }
    return { finding: hit, rule: { id: hit.rule, title: RULES[hit.rule as RuleId]?.title ?? hit.rule } };
  },
});

function* chunks<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let chunk: T[] = [];
  for (const item of items) {
    chunk.push(item);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}
