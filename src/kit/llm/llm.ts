/**
 * One chat completion through an OpenAI-compatible endpoint, with the
 * contract's honesty about upstream failure: 429 and 5xx are retried with
 * bounded exponential backoff (Retry-After honoured up to a cap), then
 * reported as retryable errors (exit 4); a timeout is bounded by the caller.
 * Tokens and cost come from the response's `usage` and the price table, and
 * are added to the envelope's meta.
 */
import type { CommandContext } from "../declare/index.ts";
import { createRedactor } from "../identity/index.ts";
import { KitError } from "../output/index.ts";
import { costOf } from "./prices.ts";

/**
 * Where the key goes is never the caller's choice: the key and its endpoint
 * are both read from the environment, a pair the platform sets together, so
 * no flag or MCP argument can send the key elsewhere.
 */
export interface ChatRequest {
  /** The variable the key comes from, named when it is refused. */
  readonly keyVariable: string;
  /** The variable naming the OpenAI-compatible base URL the key is issued for. */
  readonly endpointVariable: string;
  /** The endpoint when that variable is unset: the tool's own constant, never an input. */
  readonly defaultBaseUrl: string;
  readonly model: string;
  readonly messages: readonly { role: "system" | "user" | "assistant"; content: string }[];
  readonly timeoutMs: number;
  /** Attempts in all, the first included. */
  readonly attempts?: number;
  readonly jsonMode?: boolean;
}

/** The key and the endpoint it is bound to, as the environment gives them. */
interface Bound {
  readonly url: string;
  readonly apiKey: string;
}

export interface ChatResult {
  content: string;
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  cost_usd: number | null;
  attempts: number;
}

const BACKOFF_MS = [500, 1500, 4000];
const MAX_RETRY_AFTER_MS = 10_000;

type LlmContext = Pick<CommandContext<unknown>, "signal" | "addCost" | "log" | "redact" | "env">;

function bound(ctx: LlmContext, req: ChatRequest): Bound {
  const apiKey = ctx.env[req.keyVariable];
  if (!apiKey)
    throw new KitError("MISSING_ENV", `${req.keyVariable} is not set`, {
      detail: { variable: req.keyVariable },
      hint: `set ${req.keyVariable} in the environment`,
    });
  const base = ctx.env[req.endpointVariable] || req.defaultBaseUrl;
  return { apiKey, url: `${base.replace(/\/+$/, "")}/chat/completions` };
}

export async function chatCompletion(ctx: LlmContext, req: ChatRequest): Promise<ChatResult> {
  const attempts = req.attempts ?? 3;
  const { url, apiKey } = bound(ctx, req);
  let last: KitError | null = null;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) {
      const wait = last?.detail?.retry_after_ms as number | undefined;
      const ms = Math.min(wait ?? BACKOFF_MS[Math.min(attempt - 2, BACKOFF_MS.length - 1)]!, MAX_RETRY_AFTER_MS);
      ctx.log.warn(`${last?.message}; retrying in ${ms} ms (attempt ${attempt} of ${attempts})`);
      await Bun.sleep(ms);
    }
    const res = await send(url, apiKey, req, ctx.signal);
    if (res.status === 429 || res.status >= 500) {
      const retryAfter = Number(res.headers.get("retry-after"));
      await res.body?.cancel();
      last = new KitError(res.status === 429 ? "RATE_LIMITED" : "UPSTREAM_ERROR", `${url} answered ${res.status}`, {
        detail: {
          status: res.status,
          attempts: attempt,
          ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retry_after_ms: retryAfter * 1000 } : {}),
        },
        hint:
          res.status === 429
            ? "the endpoint is rate-limiting: wait, then retry"
            : "the endpoint is failing: retry later",
      });
      continue;
    }
    return { ...(await answerOf(res, url, { ...req, url, apiKey }, ctx)), attempts: attempt };
  }
  throw last!;
}

async function send(url: string, apiKey: string, req: ChatRequest, signal: AbortSignal): Promise<Response> {
  try {
    return await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({
        model: req.model,
        messages: req.messages,
        temperature: 0,
        ...(req.jsonMode ? { response_format: { type: "json_object" } } : {}),
      }),
      signal: AbortSignal.any([signal, AbortSignal.timeout(req.timeoutMs)]),
    });
  } catch (e) {
    const err = e as Error;
    if (signal.aborted) throw e;
    // A timeout is the caller's bound: retrying would multiply it.
    if (err.name === "TimeoutError")
      throw new KitError("UPSTREAM_TIMEOUT", `${url} did not answer within ${req.timeoutMs} ms`, {
        hint: "raise --timeout, or try again later",
      });
    throw new KitError("NETWORK_ERROR", `cannot reach ${url}: ${err.message}`, {
      hint: `check ${req.endpointVariable} and the network`,
    });
  }
}

/** How much of a refusal's body its error quotes. */
const QUOTED = 200;

/**
 * An upstream's words, redacted and then cut: a refusal often echoes the key
 * (raw, or base64 as a proxy saw it), and a key cut in half before redaction
 * no longer matches. The request's own key is masked even if it came from
 * elsewhere than the environment the command's redactor knows.
 */
function quoted(text: string, req: ChatRequest & Bound, redact: (text: string) => string): string {
  const own = createRedactor({ [req.keyVariable]: req.apiKey }, [req.keyVariable]);
  return own(redact(text)).slice(0, QUOTED);
}

/** A final answer: the message, its usage and cost (added to the command's meta), or the error it is. */
async function answerOf(
  res: Response,
  url: string,
  req: ChatRequest & Bound,
  ctx: LlmContext,
): Promise<Omit<ChatResult, "attempts">> {
  const text = await res.text();
  if (!res.ok) {
    const auth = res.status === 401 || res.status === 403;
    throw new KitError(
      auth ? "CREDENTIAL_REJECTED" : "UPSTREAM_ERROR",
      `${url} answered ${res.status}: ${quoted(text, req, ctx.redact)}`,
      {
        detail: { status: res.status },
        hint: auth ? `the key was refused: check ${req.keyVariable}` : `check --model and ${req.endpointVariable}`,
      },
    );
  }
  let body: { choices?: { message?: { content?: string } }[]; usage?: Partial<ChatResult["usage"]>; model?: string };
  try {
    body = JSON.parse(text);
  } catch {
    throw new KitError("UPSTREAM_ERROR", `${url} answered with something that is not JSON`, {
      hint: `check ${req.endpointVariable}: it must name an OpenAI-compatible API`,
    });
  }
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== "string")
    throw new KitError("UPSTREAM_ERROR", `${url} answered without a message`, { hint: "check --model" });
  const prompt = Number(body.usage?.prompt_tokens ?? 0);
  const completion = Number(body.usage?.completion_tokens ?? 0);
  const usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: Number(body.usage?.total_tokens ?? prompt + completion),
  };
  if (!body.usage) ctx.log.warn("the endpoint reported no usage: tokens and cost are recorded as 0");
  const cost = costOf(req.model, prompt, completion);
  if (cost === null) ctx.log.warn(`no price is known for ${req.model}: cost_usd is not counted`);
  ctx.addCost({ usd: cost ?? 0, tokens: usage.total_tokens });
  return { content, model: body.model ?? req.model, usage, cost_usd: cost };
}
