import * as z from "zod/mini";
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { defineCommand, describe } from "../../../src/kit/index.ts";
import { renderHistory } from "../../../src/kit/harness/history.ts";
import { LEDGER_ENV, openLedger } from "../../../src/kit/mutations/ledger/open.ts";
import { readPlanFile, resolvePlanPath } from "../../../src/kit/mutations/plan.ts";

export default defineCommand({
  resource: "history",
  verb: "render",
  tier: 2,
  rw: "read",
  summary: "Render a plan's history.html and timeline.html from its action log, through a trusted template.",
  description:
    "Reads the plan and its action log (the ledger beside the plan, or AGENT_LEDGER_URL) and writes history.html (one entry per item: its outcome and audit path, plan → approval → ledger key → log) and timeline.html (every log row in time order) into the run dir. Everything a tool wrote is escaped, and the pages run no script.",
  flags: z.object({ plan: describe(z.string().check(z.minLength(1)), "The plan: a plan.json path, or the run dir that holds it.") }),
  result: z.object({ history: z.string(), timeline: z.string(), items: z.int(), entries: describe(z.int(), "Action-log rows rendered.") }),
  schema: "harness.history.render@1",
  errors: ["NOT_FOUND", "MISSING_ARTIFACT", "PLAN_INVALID", "UPSTREAM_ERROR"],
  env: [{ name: LEDGER_ENV, scope: "config", description: "The ledger to read the action log from: a postgres:// URL, or a SQLite file (default: ledger.sqlite beside the plan)." }],
  examples: [{ argv: ["--plan", "./run", "--run-dir", "./pages"], summary: "Render the history of the plan in ./run into ./pages." }],
  async run(ctx) {
    const path = resolvePlanPath(ctx.flags.plan, ctx.cwd);
    const plan = readPlanFile(path, null);
    const url = ctx.env[LEDGER_ENV];
    const beside = join(dirname(path), "ledger.sqlite");
    let rows: Awaited<ReturnType<Awaited<ReturnType<typeof openLedger>>["actions"]>> = [];
    // A read never creates a ledger: no file yet means nothing has been applied.
    if (url || existsSync(beside)) {
      const ledger = await openLedger(url, beside);
      try {
        rows = await ledger.actions({ plan: plan.checksum });
      } finally {
        await ledger.close();
      }
    }
    const pages = renderHistory(plan, rows);
    ctx.runDir.create();
    const history = join(ctx.runDir.path, "history.html");
    const timeline = join(ctx.runDir.path, "timeline.html");
    writeFileSync(history, pages.history);
    writeFileSync(timeline, pages.timeline);
    return { history, timeline, items: plan.items.length, entries: rows.length };
  },
});
