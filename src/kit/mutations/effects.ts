/**
 * contract §8, "the gate recomputes; it never trusts the tool's number", and
 * never its labels either: each item is held to what its action declares it
 * may change (actions.ts, Effect). Judged in `target list`, the gate's
 * read-back, so the gate refuses such a plan for every tool the same way,
 * and by apply right before an item executes.
 */
import { KitError } from "../output/index.ts";
import { actionOf, type Mutations, type ReadContext } from "./actions.ts";
import { keyIsDerived, type Plan, type PlanItem } from "./plan.ts";

export interface Overreach {
  readonly item: string;
  readonly action: string;
  /** What the action may change. */
  readonly may: string;
  /** What the item's edit does beyond it. */
  readonly beyond: string[];
}

/** The item's idempotency key is its change's: one borrowed from another item would make its records that item's. */
const ownKey = (it: PlanItem, plan: Plan): string[] =>
  keyIsDerived(plan, it) ? [] : ["its idempotency_key is not the key of its change (tool, action, context, params)"];

/** What every action's items share: the targets judged (target_resource_ids) are exactly those the preconditions guard. */
function targetsAgree(it: PlanItem): string[] {
  const guarded = [...new Set(it.preconditions.map((c) => c.target))].sort();
  const named = [...new Set(it.target_resource_ids)].sort();
  return JSON.stringify(guarded) === JSON.stringify(named) && named.length === it.target_resource_ids.length
    ? []
    : [`it names the targets ${JSON.stringify(it.target_resource_ids)} but guards ${JSON.stringify(guarded)}`];
}

/** The item's overreach, or null when it does only what its action may. */
export async function overreachOf(it: PlanItem, m: Mutations, x: ReadContext): Promise<Overreach | null> {
  const spec = actionOf(m, it.action);
  if (!spec)
    return {
      item: it.id,
      action: it.action,
      may: "nothing: the tool has no such action",
      beyond: [`the action '${String(it.action).slice(0, 80)}' is unknown`],
    };
  const beyond = [...ownKey(it, x.plan), ...targetsAgree(it), ...(await spec.effect.beyond(it, x))];
  return beyond.length ? { item: it.id, action: it.action, may: spec.effect.may, beyond } : null;
}

export const overreachError = (found: readonly Overreach[]): KitError => {
  const first = found[0]!;
  return new KitError(
    "PLAN_INVALID",
    `item ${first.item} (${first.action}) does more than ${first.action} may (${first.may}): ${first.beyond[0]}${found.length > 1 ? ` (and ${found.length - 1} more item(s))` : ""}`,
    {
      detail: { items: found },
      hint: "plan again with the tool; an item's edit may do only what its action declares",
    },
  );
};

/** Refuses (PLAN_INVALID) a plan with any of these items doing more than its action may, naming each and what exceeded. */
export async function assertWithinEffects(items: readonly PlanItem[], m: Mutations, x: ReadContext): Promise<void> {
  const found: Overreach[] = [];
  for (const it of items) {
    const o = await overreachOf(it, m, x);
    if (o) found.push(o);
  }
  if (found.length) throw overreachError(found);
}

/** Refuses (PLAN_INVALID) one item whose edit does more than its action may, judged against its target as it is now: apply's check right before executing. */
export async function assertItemWithin(it: PlanItem, m: Mutations, x: ReadContext): Promise<void> {
  const o = await overreachOf(it, m, x);
  if (o) throw overreachError([o]);
}
