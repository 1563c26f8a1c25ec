/**
 * contract §8: a plan not yet applied is never replaced unasked. Planning
 * into a run dir whose plan.json still has items to apply would lose them
 * (the gate and apply read only the newest plan), so it is refused unless
 * the caller forces it. A plan that failed, expired, is empty, or whose every
 * item the ledger has settled may be replaced.
 */
import { KitError } from "../output/index.ts";
import type { CommandContext } from "../declare/index.ts";
import { LEDGER_ENV } from "./ledger/open.ts";
import { readPlanFile, type Plan } from "./plan.ts";
import { actionLog } from "./read-commands.ts";

/** How many of the plan at `path`'s items are still to apply (0: it may be replaced). */
export async function itemsLeft(
  ctx: CommandContext<unknown>,
  path: string,
): Promise<{ left: number; plan: Plan | null }> {
  let plan: Plan;
  try {
    plan = readPlanFile(path, null);
  } catch {
    return { left: 0, plan: null }; // a plan.json nothing can apply holds nothing to lose
  }
  if (plan.status !== "ready" || plan.items.length === 0 || Date.parse(plan.expiry) <= ctx.now())
    return { left: 0, plan };
  const settled = new Set(
    (await actionLog(ctx.env[LEDGER_ENV], path, { plan: plan.checksum }, ctx)).map((r) => r.item),
  );
  return { left: plan.items.filter((i) => !settled.has(i.id)).length, plan };
}

/** CONFLICT when the run dir's plan.json at `path` has items not yet applied (the caller skips it under --force). */
export async function assertReplaceable(ctx: CommandContext<unknown>, path: string): Promise<void> {
  const { left, plan } = await itemsLeft(ctx, path);
  if (left === 0 || !plan) return;
  throw new KitError(
    "CONFLICT",
    `${path} holds a plan not yet applied (${left} of ${plan.items.length} item(s) left); planning here would replace it`,
    {
      got: plan.checksum,
      hint: `review and apply it first, plan into a new run dir (--run-dir ${ctx.runDir.path}-2), or pass --force to replace it`,
    },
  );
}
