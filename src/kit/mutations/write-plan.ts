/**
 * contract §8, the plan half: a planning command writes plan.json into its
 * run dir and changes nothing else. A plan whose making fails is written as
 * `failed`, so a stale plan.json from before cannot be applied by mistake.
 * A plan.json with items not yet applied is never replaced unasked (plan-guard.ts).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { type CommandContext, describe } from "../declare/index.ts";
import { asKitError } from "../output/index.ts";
import { refuseSecrets } from "./plan-secrets.ts";
import { buildPlan, PLAN_FILE, writePlanFile, type ItemInput, type Plan } from "./plan.ts";
import { showItems } from "./shown-items.ts";

export const planResult = z.object({
  plan: describe(
    z.string(),
    "The plan.json written: give it to the gate, then to `apply --plan`. Empty under --dry-run, which writes none.",
  ),
  checksum: z.string(),
  expiry: z.string(),
  total: describe(z.int(), "How many items the plan holds; plan.json has them all."),
  counts: describe(z.record(z.string(), z.int()), "How many items per action."),
  items: describe(
    z.array(
      z.object({ id: z.string(), action: z.string(), reason: z.string(), target_resource_ids: z.array(z.string()) }),
    ),
    "The first page of the items (--limit, --cursor); `plan-item list --plan` reads the rest.",
  ),
});

export const ttlFlag = describe(
  z.optional(z.int().check(z.minimum(1), z.maximum(7 * 24 * 3600))),
  "Seconds until the plan expires (default 86400: one day).",
);

/**
 * Writes plan.json into the run dir. If making the items fails, a plan marked
 * `failed` is written instead (so a stale plan.json from before cannot be
 * applied by mistake) and the error is raised.
 */
export async function writePlan(
  ctx: CommandContext<unknown>,
  make: () => Promise<{ context: Record<string, unknown>; items: ItemInput[] }>,
  ttlSeconds = 86400,
): Promise<z.output<typeof planResult>> {
  // contract §3: everything but the side effect, and a plan command's is the plan file (and a fresh run dir for it).
  if (ctx.dryRun) return resultOf(ctx, "", buildPlan({ ...baseOf(ctx, ttlSeconds), ...(await make()) }));
  ctx.runDir.create();
  const path = join(ctx.runDir.path, PLAN_FILE);
  // Checked once the plan is made, so a mistake in the input is reported first.
  const guard = existsSync(path) && !ctx.force ? await import("./plan-guard.ts") : null;
  const base = baseOf(ctx, ttlSeconds);
  let plan: Plan;
  try {
    const made = await make();
    refuseSecrets(made, (text) => ctx.holdsSecret(text));
    plan = buildPlan({ ...base, ...made });
  } catch (e) {
    const err = asKitError(e);
    // A run dir that is gone (a fresh one, removed because its input was missing) holds no stale plan to guard against;
    // a plan not yet applied stays as it is (planning over it would have been refused).
    if (existsSync(ctx.runDir.path) && !(guard && (await unapplied(guard, ctx, path))))
      writePlanFile(
        path,
        buildPlan({ ...base, context: {}, items: [], failure: { code: err.code, message: ctx.redact(err.message) } }),
      );
    throw err;
  }
  await guard?.assertReplaceable(ctx, path);
  if (plan.items.length === 0) ctx.log.info("nothing to change: the plan has no items");
  writePlanFile(path, plan);
  return resultOf(ctx, path, plan);
}

const baseOf = (ctx: CommandContext<unknown>, ttlSeconds: number) => ({
  tool: ctx.tool.name,
  toolVersion: ctx.tool.version,
  now: ctx.now(),
  ttlSeconds,
});

/** The answer: the plan's counts and its first page of items (contract §6); plan.json holds them all. */
function resultOf(ctx: CommandContext<unknown>, path: string, plan: Plan): z.output<typeof planResult> {
  const rows = plan.items.map((i) => ({
    id: i.id,
    action: i.action,
    reason: i.reason,
    target_resource_ids: i.target_resource_ids,
  }));
  const shown = showItems(ctx, rows, { tool: ctx.tool.name, plan: path }, (i) => i.action);
  return { plan: path, checksum: plan.checksum, expiry: plan.expiry, ...shown };
}

/** Whether plan.json still has items to apply; a ledger that cannot tell counts as yes (nothing is overwritten). */
async function unapplied(
  guard: typeof import("./plan-guard.ts"),
  ctx: CommandContext<unknown>,
  path: string,
): Promise<boolean> {
  return guard.itemsLeft(ctx, path).then(
    (r) => r.left > 0,
    () => true,
  );
}
