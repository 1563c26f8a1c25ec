/**
 * Delivers a signed report: bounded retries with backoff on a 5xx, a 408 or
 * 429, a timeout or a dropped connection; never on another 4xx, which is the
 * receiver's refusal. Each attempt is signed afresh (its timestamp is now);
 * the event id stays, so the receiver stores the report once.
 */
import { KitError } from "../output/errors.ts";
import { signedHeaders } from "./sign.ts";

export interface DeliveryOptions {
  readonly secret: string;
  readonly eventId: string;
  readonly now: () => number;
  readonly signal: AbortSignal;
  readonly attempts?: number;
  readonly backoffMs?: readonly number[];
  readonly timeoutMs?: number;
  /** The command's redactor: a refusal's body is redacted, then cut, into the error. */
  readonly redact: (text: string) => string;
}

export interface Delivered {
  url: string;
  attempts: number;
  status: number;
}

const RETRIED = (status: number): boolean => status >= 500 || status === 408 || status === 429;

export async function deliver(url: string, body: string, o: DeliveryOptions): Promise<Delivered> {
  const attempts = o.attempts ?? 5;
  const backoff = o.backoffMs ?? [200, 500, 1000, 2000];
  let last = "";
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await Bun.sleep(backoff[Math.min(attempt - 2, backoff.length - 1)]!);
    o.signal.throwIfAborted();
    let res: Response;
    try {
      res = await fetch(url, { method: "POST", body, headers: signedHeaders(o.secret, body, o.eventId, o.now()), signal: AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs ?? 10_000)]) });
    } catch (e) {
      if (o.signal.aborted) throw e;
      last = (e as Error).name === "TimeoutError" ? "no answer in time" : (e as Error).message;
      continue;
    }
    const text = o.redact(await res.text()).slice(0, 300);
    if (res.ok) return { url, attempts: attempt, status: res.status };
    // A replay after an attempt whose answer was lost: the receiver has the report.
    if (res.status === 409 && attempt > 1) return { url, attempts: attempt, status: res.status };
    if (!RETRIED(res.status))
      throw new KitError("UPSTREAM_ERROR", `the receiver refused the report: ${res.status} ${text}`, {
        retryable: false,
        detail: { status: res.status, attempts: attempt },
        hint: "the report is kept in the run dir (report.json); fix what the receiver names, then deliver it again",
      });
    last = `${res.status} ${text}`;
  }
  throw new KitError("UPSTREAM_ERROR", `the report was not delivered to ${url} after ${attempts} attempts: ${last}`, {
    detail: { attempts },
    hint: "the report is kept in the run dir (report.json); retry once the receiver answers",
  });
}
