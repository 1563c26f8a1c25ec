/**
 * What a plan file's items must be to be read at all: their fields, and a
 * `reason` within its bound. A reason is what a person reads when approving,
 * and what a tool may write with the change (brain puts it in the commit
 * message): bounded like everything else an item writes, and counted by the
 * gate toward `max_write_bytes`.
 */

/** The most a reason may hold, in UTF-8 bytes: a few paragraphs, never a payload. */
export const MAX_REASON_BYTES = 4096;

const ELLIPSIS = "…";

/** A tool's own reason, cut to the bound on a character boundary and marked as cut; a reason within it is unchanged. */
export function boundedReason(reason: string): string {
  if (Buffer.byteLength(reason, "utf8") <= MAX_REASON_BYTES) return reason;
  const room = MAX_REASON_BYTES - Buffer.byteLength(ELLIPSIS, "utf8");
  let out = "";
  let bytes = 0;
  for (const ch of reason) {
    bytes += Buffer.byteLength(ch, "utf8");
    if (bytes > room) break;
    out += ch;
  }
  return `${out}${ELLIPSIS}`;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** What is wrong with item `i` of a plan file (written by anyone), or null. */
export function itemProblem(it: unknown, i: number): string | null {
  if (
    !isObject(it) ||
    typeof it.id !== "string" ||
    typeof it.action !== "string" ||
    typeof it.idempotency_key !== "string" ||
    !isObject(it.params) ||
    !Array.isArray(it.preconditions)
  )
    return "an item lacks id, action, params, idempotency_key or preconditions";
  if (typeof it.reason !== "string") return `items[${i}].reason must be a string`;
  const bytes = Buffer.byteLength(it.reason, "utf8");
  return bytes > MAX_REASON_BYTES
    ? `items[${i}].reason is ${bytes} bytes; at most ${MAX_REASON_BYTES} are accepted`
    : null;
}
