/**
 * contract §6: bounded lists. A cursor is opaque to the caller: the offset of
 * the next item plus a fingerprint of the query it belongs to, so a cursor
 * replayed against a different query is refused rather than silently wrong.
 * The same query over the same data always yields the same cursors.
 */
import { KitError, type Pagination } from "../output/index.ts";

export interface PageRequest {
  readonly limit: number;
  readonly maxLimit: number;
  readonly offset: number;
  readonly fingerprint: string;
}

export interface Page<T> {
  readonly items: T[];
  readonly pagination: Pagination;
  readonly truncationHint: string | null;
}

export function queryFingerprint(command: string, flags: Record<string, unknown>): string {
  return Bun.hash(JSON.stringify([command, Object.entries(flags).sort(([a], [b]) => (a < b ? -1 : 1))])).toString(36);
}

// The language's own base64 (not Buffer, which is set up on first use): unpadded base64url.
const encode = (offset: number, fingerprint: string): string =>
  new TextEncoder()
    .encode(JSON.stringify({ o: offset, q: fingerprint }))
    .toBase64({ alphabet: "base64url", omitPadding: true });

export function decodeCursor(cursor: string, fingerprint: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(cursor, { alphabet: "base64url" })));
  } catch {
    parsed = undefined;
  }
  const p = parsed as { o?: unknown; q?: unknown } | undefined;
  if (!p || typeof p.o !== "number" || !Number.isInteger(p.o) || p.o < 0 || typeof p.q !== "string")
    throw new KitError("INVALID_CURSOR", "--cursor is not a cursor this tool issued", {
      got: cursor,
      hint: "pass the meta.pagination.next_cursor of the previous page unchanged",
    });
  if (p.q !== fingerprint)
    throw new KitError(
      "INVALID_CURSOR",
      "--cursor belongs to a different query; a cursor only continues the list it came from",
      {
        got: cursor,
        hint: "repeat the flags of the first page with this cursor, or drop --cursor to start over",
      },
    );
  return p.o;
}

/** A page a command cut from its store itself (at the asked offset, at most the asked limit), and the whole list's length. */
export interface CutPage<T> {
  readonly total: number;
  readonly items: readonly T[];
}

const isCut = <T>(list: readonly T[] | CutPage<T>): list is CutPage<T> => !Array.isArray(list);

/** `also`, when given, ends the truncation hint: another way to the rest (a read that needs no re-run). */
export function paginate<T>(list: readonly T[] | CutPage<T>, req: PageRequest, noun = "items", also?: string): Page<T> {
  const total = isCut(list) ? list.total : list.length;
  if (req.offset > total)
    throw new KitError("INVALID_CURSOR", `--cursor points past the end of the list (${total} ${noun})`, {
      hint: "the list shrank since the cursor was issued; drop --cursor to start over",
    });
  const items = isCut(list) ? list.items.slice(0, req.limit) : list.slice(req.offset, req.offset + req.limit);
  const end = req.offset + items.length;
  const rest = total - end;
  const next = rest > 0 ? encode(end, req.fingerprint) : null;
  return {
    items,
    pagination: { limit: req.limit, returned: items.length, total, next_cursor: next },
    truncationHint: next
      ? `${rest} more ${noun}: add --cursor=${next} for the next page, or --limit=${Math.min(total - req.offset, req.maxLimit)} for a bigger one${also ? `; ${also}` : ""}`
      : null,
  };
}
