/**
 * contract §8, the reads a mutating tool gets: `target list`, the live state
 * of every resource a plan targets (what the gate judges a plan by),
 * `plan-item list`, a plan's items page by page (a plan's answer shows only the
 * first page), and `action list`, the action log from the ledger.
 */
import { existsSync } from "node:fs";
import * as z from "zod/mini";
import { type CommandContext, type CommandSpec, defineCommand, describe } from "../declare/index.ts";
import { KIT_BOUNDS } from "../lists/index.ts";
import { KitError } from "../output/index.ts";
import { type Mutations, writesOf } from "./actions.ts";
import { assertWithinEffects } from "./effects.ts";
import { failpointsOf } from "./failpoints.ts";
import { APPLY_ENV, ledgerBeside, planFlag } from "./apply-command.ts";
import type { ActionLogRow } from "./ledger/ledger.ts";
import { LEDGER_ENV, type LedgerOptions, openLedger } from "./ledger/open.ts";
import { type Plan, type PlanItem, readPlanFile, resolvePlanPath } from "./plan.ts";

export function targetListCommand(tool: string, m: Mutations): CommandSpec<any, any> {
  return defineCommand({
    resource: "target",
    verb: "list",
    tier: 1,
    rw: "read",
    summary: "List the live state of every resource a plan targets: the read-back the gate judges it by.",
    description:
      "Refuses (PLAN_INVALID) a plan with an item touching the page's targets whose edit does more than its action may change, judged against their live content, naming the item and what exceeded: the gate reads every page, and never approves such a plan.",
    flags: z.object({ plan: planFlag }),
    result: z.object({
      items: z.array(
        z.object({
          id: z.string(),
          exists: z.boolean(),
          version: z.nullable(z.string()),
          bytes: z.int(),
          items: describe(z.array(z.string()), "The plan items that touch it."),
          decide: describe(
            z.array(z.object({ item: z.string(), reason: z.string() })),
            "What a person must decide about the items that touch it: the gate never approves those by its policy alone.",
          ),
        }),
      ),
    }),
    schema: `${tool}.target.list@1`,
    errors: ["NOT_FOUND", "MISSING_ARTIFACT", "PLAN_INVALID", "INVALID_INPUT", ...(m.errors ?? [])],
    env: m.env ?? [],
    writes: writesOf(m),
    list: KIT_BOUNDS,
    async run(ctx) {
      const plan = readPlanFile(resolvePlanPath(ctx.flags.plan, ctx.cwd), ctx.tool.name);
      await failpointsOf(ctx.env).delayRead(ctx.signal);
      return { items: ctx.paginate(await targetsPage(plan, m, ctx), "targets") };
    },
  });
}

/**
 * The page of the plan's targets asked for, live: only its targets are read,
 * and only the items touching them judged (an item with no target on every
 * page). The gate reads every page, so judges each item once; judging the
 * whole plan for each page made a plan of many pages cost as many whole
 * judgements.
 */
async function targetsPage(plan: Plan, m: Mutations, ctx: CommandContext<unknown>) {
  const x = { plan, env: ctx.env, signal: ctx.signal };
  const byTarget = new Map<string, PlanItem[]>();
  for (const it of plan.items)
    for (const t of new Set(it.target_resource_ids)) {
      const items = byTarget.get(t);
      if (items) items.push(it);
      else byTarget.set(t, [it]);
    }
  const { offset, limit } = ctx.page!;
  const page = [...byTarget].slice(offset, offset + limit);
  const touching = new Set([
    ...page.flatMap(([, items]) => items),
    ...plan.items.filter((it) => it.target_resource_ids.length === 0),
  ]);
  const judged = plan.items.filter((it) => touching.has(it));
  await assertWithinEffects(judged, m, x);
  const asked = new Map<PlanItem, string[]>();
  for (const it of judged) asked.set(it, (await m.actions[it.action]?.effect.asks?.(it, x)) ?? []);
  const rows = [];
  for (const [id, items] of page) {
    const live = await m.readTarget(id, x);
    rows.push({
      id,
      exists: live !== null,
      version: live?.version ?? null,
      bytes: live?.bytes ?? 0,
      items: items.map((it) => it.id),
      decide: items.flatMap((it) => asked.get(it)!.map((reason) => ({ item: it.id, reason }))),
    });
  }
  return { total: byTarget.size, items: rows };
}

export function itemListCommand(tool: string): CommandSpec<any, any> {
  return defineCommand({
    resource: "plan-item",
    verb: "list",
    tier: 1,
    rw: "read",
    summary: "List a plan's items, page by page: what `plan`, `gate review` and `apply` show the first page of.",
    flags: z.object({
      plan: planFlag,
      action: describe(z.optional(z.string().check(z.minLength(1))), "Only the items of this action."),
    }),
    result: z.object({
      items: z.array(
        z.object({ id: z.string(), action: z.string(), reason: z.string(), target_resource_ids: z.array(z.string()) }),
      ),
    }),
    schema: `${tool}.plan-item.list@1`,
    errors: ["NOT_FOUND", "MISSING_ARTIFACT", "PLAN_INVALID"],
    list: KIT_BOUNDS,
    async run(ctx) {
      const plan = readPlanFile(resolvePlanPath(ctx.flags.plan, ctx.cwd), ctx.tool.name);
      const rows = plan.items
        .filter((it) => ctx.flags.action === undefined || it.action === ctx.flags.action)
        .map((it) => ({
          id: it.id,
          action: it.action,
          reason: it.reason,
          target_resource_ids: it.target_resource_ids,
        }));
      return { items: ctx.paginate(rows, "plan items") };
    },
  });
}

const actionRow = z.object({
  at: z.string(),
  actor: z.string(),
  tool: z.string(),
  action: z.string(),
  plan: z.string(),
  item: z.string(),
  idempotency_key: z.string(),
  outcome: z.string(),
  executed: z.boolean(),
  started_at: z.string(),
  finished_at: z.string(),
});

/**
 * Action-log rows from the shared ledger (`url`), else from the ledger beside
 * the plan at `planPath`. A read never creates a ledger: none there yet means
 * nothing has been applied.
 */
export async function actionLog(
  url: string | undefined,
  planPath: string | null,
  filter: { plan?: string; tool?: string },
  o: LedgerOptions,
): Promise<ActionLogRow[]> {
  const beside = planPath ? ledgerBeside(planPath) : null;
  if (!url && (!beside || !existsSync(beside))) return [];
  const ledger = await openLedger(url, beside ?? "", o);
  try {
    return await ledger.actions(filter);
  } finally {
    await ledger.close();
  }
}

/** The log of one plan (its ledger beside it unless a shared one is set), or of the shared ledger. */
async function readActions(ctx: CommandContext<{ plan?: string }>): Promise<{ items: z.input<typeof actionRow>[] }> {
  const url = ctx.env[LEDGER_ENV];
  let plan: Plan | null = null;
  let path: string | null = null;
  if (ctx.flags.plan) {
    path = resolvePlanPath(ctx.flags.plan, ctx.cwd);
    plan = readPlanFile(path, ctx.tool.name);
  } else if (!url)
    throw new KitError("MISSING_FLAG", "give --plan, or set AGENT_LEDGER_URL to read a shared ledger", {
      hint: "add --plan ./run",
    });
  const rows = await actionLog(url, path, { plan: plan?.checksum, tool: ctx.tool.name }, ctx);
  const iso = (ms: number) => new Date(ms).toISOString();
  const items = rows.map((r) => ({
    at: iso(r.at),
    actor: r.actor,
    tool: r.tool,
    action: r.action,
    plan: r.plan,
    item: r.item,
    idempotency_key: r.key,
    outcome: r.outcome,
    executed: r.executed,
    started_at: iso(r.startedAt),
    finished_at: iso(r.finishedAt),
  }));
  return { items: ctx.paginate(items, "actions") };
}

export function actionListCommand(tool: string): CommandSpec<any, any> {
  return defineCommand({
    resource: "action",
    verb: "list",
    tier: 1,
    rw: "read",
    summary: "List the action log: every executed or reconciled item, who ran it, its key and outcome.",
    flags: z.object({
      plan: describe(
        z.optional(z.string().check(z.minLength(1))),
        "Only this plan's actions; its ledger is found beside it unless AGENT_LEDGER_URL is set.",
      ),
    }),
    result: z.object({ items: z.array(actionRow) }),
    schema: `${tool}.action.list@1`,
    errors: ["NOT_FOUND", "MISSING_ARTIFACT", "MISSING_FLAG", "PLAN_INVALID", "UPSTREAM_ERROR"],
    env: APPLY_ENV.filter((v) => v.name === LEDGER_ENV),
    list: KIT_BOUNDS,
    run: readActions,
  });
}
