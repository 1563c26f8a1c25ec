/**
 * contract §6: every list is bounded. The kit's default and ceiling, and
 * the page a command's `--limit`/`--cursor` ask for.
 */
import { KitError } from "../output/index.ts";
import { decodeCursor, queryFingerprint, type PageRequest } from "./paginate.ts";

/** The kit's bounded default; a tool may lower it, never remove it. */
export const KIT_DEFAULT_LIMIT = 50;
export const KIT_MAX_LIMIT = 1000;
export const KIT_BOUNDS = { defaultLimit: KIT_DEFAULT_LIMIT, maxLimit: KIT_MAX_LIMIT } as const;

export type ListBounds = { readonly defaultLimit: number; readonly maxLimit: number };

/** A positive integer within the command's bound; 0 is not "unbounded". */
export function parseLimit(text: string | undefined, bounds: ListBounds): number {
  if (text === undefined) return bounds.defaultLimit;
  const n = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n))
    throw new KitError("INVALID_VALUE", `--limit must be an integer (got: '${text}')`, {
      got: text,
      hint: `write --limit=${bounds.defaultLimit}`,
    });
  if (n < 1 || n > bounds.maxLimit)
    throw new KitError(
      "OUT_OF_RANGE",
      `--limit must be within 1..${bounds.maxLimit} (got: ${n})${n === 0 ? "; 0 does not mean unbounded" : ""}`,
      {
        allowed: { min: 1, max: bounds.maxLimit },
        got: n,
        hint: `page with --cursor instead of asking for everything`,
      },
    );
  return n;
}

/**
 * The page a command is asked for; null for a command that returns no list,
 * where --limit has nothing to bound (USAGE, naming the commands that take
 * it: a limit silently ignored reads as honoured) and a cursor nothing to
 * continue. `listing`: the tool's commands that return a list.
 */
export function pageRequestOf(
  command: { readonly name: string; readonly pagination: ListBounds | null },
  asked: { readonly limit?: string; readonly cursor?: string },
  flags: Record<string, unknown>,
  listing: readonly string[] = [],
): PageRequest | null {
  if (!command.pagination) {
    if (asked.limit !== undefined)
      throw new KitError("USAGE", `${command.name} returns no list, so --limit has nothing to bound`, {
        got: asked.limit,
        ...(listing.length > 0 ? { allowed: [...listing] } : {}),
        hint: `drop --limit; ${listing.length > 0 ? `the commands that take it: ${listing.join(", ")}` : "no command of this tool takes it"}`,
      });
    if (asked.cursor !== undefined)
      throw new KitError("INVALID_CURSOR", `${command.name} returns no list, so --cursor has nothing to continue`, {
        got: asked.cursor,
      });
    return null;
  }
  const bounds = command.pagination;
  const limit = parseLimit(asked.limit, bounds);
  const fingerprint = queryFingerprint(command.name, flags);
  const offset = asked.cursor === undefined ? 0 : decodeCursor(asked.cursor, fingerprint);
  return { limit, maxLimit: bounds.maxLimit, offset, fingerprint };
}
