/**
 * contract §6 on the write path: a plan, an approval or an apply answers
 * with counts and the first page of its items, never all of them (a plan of
 * a big site holds hundreds). The whole plan stays in plan.json, and
 * `<tool> plan-item list --plan` reads the rest without re-running the write.
 */
import type { CommandContext } from "../declare/index.ts";
import { KIT_BOUNDS, KIT_DEFAULT_LIMIT } from "../lists/index.ts";

/** The bound a write's answer shows its items by: the kit's. Declare it as the command's `list`. */
export const PLAN_LIST = KIT_BOUNDS;

export interface ShownItems<T> {
  /** How many items the plan (or the apply) holds in all. */
  readonly total: number;
  /** How many of them per action (or per outcome). */
  readonly counts: Record<string, number>;
  /** This page of them. */
  readonly items: T[];
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const it of items) counts[key(it)] = (counts[key(it)] ?? 0) + 1;
  return counts;
}

/**
 * The page of `items` this answer shows, with the total and the counts.
 * `tool` and `plan` name the read that lists them all. A command that
 * declares no `list` shows the kit's default page, and the total says what
 * was left out.
 */
export function showItems<T>(
  ctx: CommandContext<unknown>,
  items: readonly T[],
  where: { readonly tool: string; readonly plan: string },
  key: (item: T) => string,
): ShownItems<T> {
  const counts = countBy(items, key);
  const read = `${where.tool} plan-item list --plan ${where.plan}`;
  const { offset, limit } = ctx.page ?? { offset: 0, limit: KIT_DEFAULT_LIMIT };
  if (items.length > offset + limit) ctx.next(read, "last");
  const page = ctx.page
    ? ctx.paginate(items, "plan items", `or read them without re-running this: \`${read}\``)
    : items.slice(0, limit);
  return { total: items.length, counts, items: page };
}
