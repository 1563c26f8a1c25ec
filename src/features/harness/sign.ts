/**
 * The job contract's wire (contract §0): a report is an HMAC-SHA256-signed
 * POST. The signature covers the timestamp, the event id and the body's
 * digest, so a body changed in flight, a forged signature and a replay of an
 * old request are each told apart by the receiver.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const HEADERS = {
  eventId: "x-harness-event-id",
  timestamp: "x-harness-timestamp",
  digest: "x-harness-content-sha256",
  signature: "x-harness-signature",
} as const;

/** How far a request's timestamp may be from the receiver's clock. */
export const DEFAULT_WINDOW_SECONDS = 300;

const hex = (data: string | Uint8Array): string => new Bun.CryptoHasher("sha256").update(data).digest("hex");
const mac = (secret: string, ts: string, eventId: string, digest: string): string =>
  `v1=${createHmac("sha256", secret).update(`${ts}.${eventId}.${digest}`).digest("hex")}`;

export function signedHeaders(secret: string, body: string, eventId: string, nowMs: number): Record<string, string> {
  const ts = String(Math.floor(nowMs / 1000));
  const digest = hex(body);
  return {
    "content-type": "application/json",
    [HEADERS.eventId]: eventId,
    [HEADERS.timestamp]: ts,
    [HEADERS.digest]: digest,
    [HEADERS.signature]: mac(secret, ts, eventId, digest),
  };
}

export type Refusal = "unsigned" | "body-changed" | "bad-signature" | "stale-timestamp";

/** Why a request is refused, or null when it is authentic and fresh. */
export function checkSignature(
  secret: string,
  headers: Headers,
  body: Uint8Array,
  nowMs: number,
  windowSeconds = DEFAULT_WINDOW_SECONDS,
): Refusal | null {
  const [eventId, ts, digest, signature] = [HEADERS.eventId, HEADERS.timestamp, HEADERS.digest, HEADERS.signature].map(
    (h) => headers.get(h),
  );
  if (!eventId || !ts || !digest || !signature || !/^\d{1,12}$/.test(ts)) return "unsigned";
  if (hex(body) !== digest) return "body-changed";
  const expected = Buffer.from(mac(secret, ts, eventId, digest));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "bad-signature";
  if (Math.abs(nowMs / 1000 - Number(ts)) > windowSeconds) return "stale-timestamp";
  return null;
}
