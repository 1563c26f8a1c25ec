/**
 * The gate's judgement: deterministic, and blind to the tool's own
 * `projected_impact`. Each item's bound is recomputed from its raw params
 * and reason (the bytes it can write: brain commits the reason) and the live read-back of its targets (the bytes
 * it can overwrite or destroy), then held against the standing policy.
 */
import type { Plan, PlanItem } from "../kit/mutations/plan.ts";
import type { Policy } from "../kit/mutations/policy.ts";

export interface LiveTarget {
  readonly id: string;
  readonly exists: boolean;
  readonly version: string | null;
  readonly bytes: number;
  /** What a person must decide about the items touching it, as the tool's read-back says. */
  readonly decide?: readonly { item: string; reason: string }[];
}

export interface ItemBound {
  readonly id: string;
  readonly action: string;
  readonly write_bytes: number;
  readonly target_bytes: number;
  /** Each limit this item exceeds, said so a person can decide. */
  readonly exceeded: string[];
}

export interface Judgement {
  readonly items: ItemBound[];
  /** Plan-level reasons a person must decide. */
  readonly exceeded: string[];
  /** Targets whose live version no longer matches the first item that expects them. */
  readonly stale: { target: string; expected: string | null; live: string | null }[];
}

/** UTF-8 bytes of every string in the params: an upper bound on what an item can write. */
export function writeBytes(value: unknown): number {
  if (typeof value === "string") return Buffer.byteLength(value, "utf8");
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + writeBytes(v), 0);
  if (value && typeof value === "object") return Object.values(value).reduce((n: number, v) => n + writeBytes(v), 0);
  return 0;
}

/** What the tool's read-back says a person must decide about the item, each reason once. */
const personsCall = (it: PlanItem, live: ReadonlyMap<string, LiveTarget>): string[] => [
  ...new Set(
    it.target_resource_ids.flatMap((t) =>
      (live.get(t)?.decide ?? []).filter((d) => d.item === it.id).map((d) => d.reason),
    ),
  ),
];

export function judge(plan: Plan, policy: Policy, live: ReadonlyMap<string, LiveTarget>): Judgement {
  const exceeded: string[] = [];
  if (plan.items.length > policy.max_items)
    exceeded.push(
      `the plan has ${plan.items.length} items; policy ${policy.version} auto-approves at most ${policy.max_items}`,
    );
  const stale: Judgement["stale"] = [];
  const firstSeen = new Set<string>();
  const items = plan.items.map((it: PlanItem): ItemBound => {
    for (const c of it.preconditions) {
      if (firstSeen.has(c.target)) continue; // later items expect the version the earlier ones leave
      firstSeen.add(c.target);
      const now = live.get(c.target)?.version ?? null;
      if (now !== c.version) stale.push({ target: c.target, expected: c.version, live: now });
    }
    const write_bytes = writeBytes(it.params) + writeBytes(it.reason);
    const target_bytes = it.target_resource_ids.reduce((n, t) => n + (live.get(t)?.bytes ?? 0), 0);
    const rule = policy.actions[`${plan.tool}.${it.action}`];
    const over: string[] = personsCall(it, live);
    if (!rule)
      over.push(`${plan.tool}.${it.action} is not covered by policy ${policy.version}: a person must approve it`);
    else {
      if (!rule.auto_approve) over.push(`policy ${policy.version} never auto-approves ${plan.tool}.${it.action}`);
      if (rule.max_write_bytes !== undefined && write_bytes > rule.max_write_bytes)
        over.push(`writes up to ${write_bytes} bytes; the limit is ${rule.max_write_bytes}`);
      if (rule.max_target_bytes !== undefined && target_bytes > rule.max_target_bytes)
        over.push(`touches targets of ${target_bytes} bytes; the limit is ${rule.max_target_bytes}`);
    }
    return { id: it.id, action: it.action, write_bytes, target_bytes, exceeded: over };
  });
  return { items, exceeded, stale };
}
