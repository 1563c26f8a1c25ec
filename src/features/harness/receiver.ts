/**
 * The receiving side of a report, as a library (and `harness receive`, a
 * small HTTP server over it): the signature, a timestamp window, the body's
 * shape and every step's data against its registered schema, then one row
 * per event in the store. Each refusal has its own reason and status; a
 * failure inside answers short JSON (503 for the store, else 500).
 */
import type { SchemaRegistry } from "./ingest.ts";
import { ingest } from "./ingest.ts";
import { checkSignature, DEFAULT_WINDOW_SECONDS, HEADERS } from "./sign.ts";
import type { EventStore } from "./store.ts";

export interface ReceiverOptions {
  readonly secret: string;
  readonly store: EventStore;
  readonly registry: SchemaRegistry;
  readonly now: () => number;
  readonly windowSeconds?: number;
  readonly maxBytes?: number;
  /** Applied to what is stored and answered: a report that carries the receiver's own secret never lands whole in its store. */
  readonly redact?: (text: string) => string;
  /** Every request's outcome, accepted or not. */
  readonly onEvent?: (e: ReceiverEvent) => void;
}

export type ReceiverEvent =
  | { readonly accepted: true; readonly jobId: string; readonly eventId: string; readonly status: string }
  | {
      readonly accepted: false;
      readonly reason: string;
      readonly status: number;
      readonly detail?: Record<string, unknown>;
    };

const MAX_BYTES = 10 * 1024 * 1024;
const STATUS: Readonly<Record<string, number>> = {
  unsigned: 401,
  "body-changed": 400,
  "bad-signature": 401,
  "stale-timestamp": 401,
  replay: 409,
  schema: 422,
  "bad-request": 400,
  "too-large": 413,
  method: 405,
  "store-unavailable": 503,
  internal: 500,
};

/** The answer to anything that went wrong inside: short JSON, never a stack, a path or a development page. */
export const internalAnswer = (): Response =>
  Response.json({ accepted: false, reason: "internal", message: "the receiver failed; retry later" }, { status: 500 });

export function createReceiver(o: ReceiverOptions): (req: Request) => Promise<Response> {
  const refuse = (reason: string, detail?: Record<string, unknown>): Response => {
    const status = STATUS[reason] ?? 400;
    o.onEvent?.({ accepted: false, reason, status, ...(detail ? { detail } : {}) });
    const answer = JSON.stringify({ accepted: false, reason, ...detail });
    return new Response(o.redact ? o.redact(answer) : answer, {
      status,
      headers: { "content-type": "application/json" },
    });
  };
  const handle = async (req: Request): Promise<Response> => {
    if (req.method !== "POST") return refuse("method");
    const body = new Uint8Array(await req.arrayBuffer());
    if (body.length > (o.maxBytes ?? MAX_BYTES)) return refuse("too-large");
    const refusal = checkSignature(o.secret, req.headers, body, o.now(), o.windowSeconds ?? DEFAULT_WINDOW_SECONDS);
    if (refusal) return refuse(refusal);
    const text = new TextDecoder().decode(body);
    let report: Record<string, unknown>;
    try {
      report = JSON.parse(text);
    } catch {
      return refuse("bad-request", { message: "the body is not JSON" });
    }
    const verdict = ingest(report, o.registry);
    if (!verdict.ok)
      return refuse("schema", {
        step: verdict.step,
        schema: verdict.schema,
        path: verdict.path,
        message: verdict.message,
      });
    const eventId = req.headers.get(HEADERS.eventId)!;
    if (report.event_id !== eventId)
      return refuse("bad-request", { message: "the body's event_id is not the signed one" });
    let stored: "stored" | "replay";
    try {
      stored = await o.store.record({
        jobId: String(report.job_id),
        eventType: String(report.event_type),
        eventId,
        receivedAt: o.now(),
        body: o.redact ? o.redact(text) : text,
      });
    } catch {
      // The sender retries a 503; what failed stays here (its message may carry the store's address).
      const res = refuse("store-unavailable", { message: "the event store is unavailable; retry later" });
      res.headers.set("retry-after", "1");
      return res;
    }
    if (stored === "replay") return refuse("replay", { event_id: eventId });
    o.onEvent?.({ accepted: true, jobId: String(report.job_id), eventId, status: String(report.status) });
    return Response.json({ accepted: true, event_id: eventId });
  };
  return (req) => handle(req).catch(() => internalAnswer());
}
