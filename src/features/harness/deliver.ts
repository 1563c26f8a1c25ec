/**
 * Delivers a signed report: bounded retries with backoff on a 5xx, a 408 or
 * 429, a timeout or a dropped connection; never on another 4xx, which is the
 * receiver's refusal. Each attempt is signed afresh (its timestamp is now);
 * the event id stays, so the receiver stores the report once. A Retry-After
 * is honoured (bounded); a redirect is refused, never followed with the
 * signed body.
 */
import { KitError } from "../../kit/output/index.ts";
import { signedHeaders } from "./sign.ts";

export interface DeliveryOptions {
  readonly secret: string;
  readonly eventId: string;
  readonly now: () => number;
  readonly signal: AbortSignal;
  readonly attempts?: number;
  readonly backoffMs?: readonly number[];
  readonly timeoutMs?: number;
  /** The command's redactor: a refusal's answer is redacted, then cut, into the error. */
  readonly redact?: (text: string) => string;
}

export interface Delivered {
  url: string;
  attempts: number;
  status: number;
}

const RETRIED = (status: number): boolean => status >= 500 || status === 408 || status === 429;
/** The longest Retry-After honoured: a receiver cannot park a job for longer. */
export const MAX_RETRY_AFTER_MS = 30_000;

/** Retry-After as milliseconds from now (seconds or an HTTP date), bounded; null when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs: number): number | null {
  if (!value) return null;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - nowMs;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : null;
}

/** What the receiver said, short: its JSON reason and message, never a page of HTML or a stack. */
async function answerOf(res: Response, redact: (text: string) => string): Promise<string> {
  const text = redact(await res.text());
  try {
    const body = JSON.parse(text) as { reason?: unknown; message?: unknown; path?: unknown };
    const parts = [body.reason, body.path, body.message].filter((p) => typeof p === "string") as string[];
    if (parts.length) return `${res.status} ${parts.join(": ").slice(0, 200)}`;
  } catch {}
  return `${res.status} (${res.headers.get("content-type")?.split(";")[0] ?? "an answer"} of ${text.length} bytes, not shown)`;
}

const refused = (url: string, status: number, answer: string, attempt: number): KitError => {
  if (status === 409)
    return new KitError("CONFLICT", `the receiver already has this event: ${answer}`, {
      detail: { status, attempts: attempt },
      hint: "nothing to do: the report was delivered before (same event id)",
    });
  if (status >= 300 && status < 400)
    return new KitError(
      "UPSTREAM_ERROR",
      `the receiver at ${url} answered ${status}, a redirect: a signed report is not re-sent elsewhere`,
      { retryable: false, detail: { status, attempts: attempt }, hint: "give the delivery URL the redirect names" },
    );
  return new KitError("UPSTREAM_ERROR", `the receiver refused the report: ${answer}`, {
    retryable: false,
    detail: { status, attempts: attempt },
    hint: "the report is kept in the run dir (report.json); fix what the receiver names, then `harness report deliver` it again",
  });
};

export async function deliver(url: string, body: string, o: DeliveryOptions): Promise<Delivered> {
  const attempts = o.attempts ?? 5;
  const backoff = o.backoffMs ?? [200, 500, 1000, 2000];
  let last = "";
  let wait = 0;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await Bun.sleep(Math.max(wait, backoff[Math.min(attempt - 2, backoff.length - 1)]!));
    o.signal.throwIfAborted();
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        body,
        redirect: "manual",
        headers: signedHeaders(o.secret, body, o.eventId, o.now()),
        signal: AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs ?? 10_000)]),
      });
    } catch (e) {
      if (o.signal.aborted) throw e;
      last = (e as Error).name === "TimeoutError" ? "no answer in time" : (e as Error).message;
      wait = 0;
      continue;
    }
    const answer = await answerOf(res, o.redact ?? ((t) => t));
    if (res.ok) return { url, attempts: attempt, status: res.status };
    // A replay after an attempt whose answer was lost: the receiver has the report.
    if (res.status === 409 && attempt > 1) return { url, attempts: attempt, status: res.status };
    if (!RETRIED(res.status)) throw refused(url, res.status, answer, attempt);
    last = answer;
    wait = retryAfterMs(res.headers.get("retry-after"), o.now()) ?? 0;
  }
  throw new KitError("UPSTREAM_ERROR", `the report was not delivered to ${url} after ${attempts} attempts: ${last}`, {
    detail: { attempts },
    hint: "the report is kept in the run dir (report.json); `harness report deliver` sends it again, with the same event id, once the receiver answers",
  });
}
