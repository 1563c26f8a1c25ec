/**
 * Redact first, then cut: a key that a truncation cuts at any offset leaks at
 * most the eight characters the mask keeps, in every form the redactor knows
 * (raw, JSON-escaped, URL-encoded, base64). At the unit level (an error's
 * message and its echo of `got`) and through the real llm error path against
 * a real chat server on 127.0.0.1 that answers 401 echoing the key.
 */
import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createRedactor } from "../../src/kit/identity/redact.ts";
import { chatCompletion } from "../../src/kit/llm/llm.ts";
import { emitEnvelope } from "../../src/kit/output/emit.ts";
import { success, type Meta } from "../../src/kit/output/envelope.ts";
import { KitError, toErrorObject } from "../../src/kit/output/errors.ts";
import { createLogger } from "../../src/kit/output/log.ts";
import { chatServer, type ChatServer } from "../helpers/chat-server.ts";
import { echoing, formsOf, leakOf, offsetsOf } from "../helpers/leak.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const KEY = "OPENROUTER_API_KEY";
const MASK_KEEPS = 8;

/** Keys as providers issue them, and secrets holding characters that JSON and URLs escape (never the padding's '.'). */
const CHARS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", ...'-_"\\/+=&%:~'];
const secrets = fc
  .tuple(
    fc.constantFrom("sk-or-v1-", "sk-ant-", "ghp_", "AKIA", ""),
    fc.string({ unit: fc.constantFrom(...CHARS), minLength: 16, maxLength: 40 }),
  )
  .map(([p, s]) => p + s);

/** What leaves the process for an error: its wire form, through the redactor once more, as the envelope is emitted. */
const emitted = (e: KitError, redact: (t: string) => string) => {
  const wire = toErrorObject(e, redact);
  return [redact(JSON.stringify(wire)), wire.message, String(wire.got ?? "")];
};

describe("redact first, then cut (unit)", () => {
  test("an error's message (cut at 1000) and its echo of got (cut at 200) leak at most 8 characters of a key cut at every offset, in every form", () => {
    fc.assert(
      fc.property(secrets, (secret) => {
        const redact = createRedactor({ [KEY]: secret }, [KEY]);
        for (const form of formsOf(secret))
          for (const offset of offsetsOf(form)) {
            const e = new KitError("UPSTREAM_ERROR", echoing(form, offset, 999), { got: echoing(form, offset, 199) });
            const leak = leakOf(secret, ...emitted(e, redact));
            if (leak > MASK_KEEPS)
              throw new Error(
                `${leak} characters of ${JSON.stringify(secret)} left as ${JSON.stringify(form)} cut ${offset} in: ${emitted(e, redact)[0]}`,
              );
          }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe("redact first, then clip (text on a terminal)", () => {
  const meta: Meta = {
    schema: null,
    duration_ms: 0,
    cost_usd: 0,
    llm_tokens: 0,
    pagination: null,
    truncated: false,
    truncation_hint: null,
    run_dir: null,
    outcome: { unit: "count", projected: null, realized: null, cost_usd: 0, confidence: null },
    next: [],
  };

  test("a key in a table cell or a long value, clipped or wrapped at any width, leaks at most 8 characters", async () => {
    await fc.assert(
      fc.asyncProperty(
        secrets,
        fc.integer({ min: 20, max: 120 }),
        fc.integer({ min: 0, max: 60 }),
        async (secret, width, pad) => {
          const redact = createRedactor({ [KEY]: secret }, [KEY]);
          const lead = ".".repeat(pad);
          for (const data of [
            { items: [{ id: "a", value: `${lead}${secret}` }] },
            { value: `${lead}${secret}` },
            { note: `${lead} ${secret} and more` },
          ]) {
            const out: string[] = [];
            const sink = {
              mode: "text" as const,
              redact,
              colour: false,
              width,
              writeStdout: async (t: string) => void out.push(t),
              writeStderr: (t: string) => void out.push(t),
            };
            await emitEnvelope(success({ tool: "t", contractVersion: 1, command: "c", meta }, data), sink);
            const leak = leakOf(secret, out.join(""), out.join("").replace(/\s+/g, ""));
            if (leak > MASK_KEEPS)
              throw new Error(`${leak} characters of ${JSON.stringify(secret)} at width ${width}: ${out.join("")}`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("redact first, then cut (the llm error path, a real server)", () => {
  const servers: ChatServer[] = [];
  afterAll(() => {
    for (const s of servers) s.stop();
  }, SLOW_HOOK);
  const ctx = (redact: (t: string) => string, env: Record<string, string>) => ({
    env,
    signal: new AbortController().signal,
    addCost: () => {},
    log: createLogger({ write: () => {}, colour: false, level: 3 }),
    redact,
  });

  test("a 401 echoing the key, cut at 200 at every offset of every form, leaks at most 8 characters of it", async () => {
    const answer: { status: number; body: string } = { status: 401, body: "" };
    const server = chatServer([answer]);
    servers.push(server);
    await fc.assert(
      fc.asyncProperty(secrets, async (secret) => {
        const redact = createRedactor({ [KEY]: secret, HOME: "/home/me" }, [KEY]);
        for (const form of formsOf(secret))
          for (const offset of offsetsOf(form)) {
            answer.body = echoing(form, offset, 200);
            const request = {
              keyVariable: KEY,
              endpointVariable: "AGENT_LLM_BASE_URL",
              defaultBaseUrl: "https://openrouter.ai/api/v1",
              model: "m",
              messages: [{ role: "user" as const, content: "hi" }],
              timeoutMs: 10_000,
              attempts: 1,
            };
            const e = (await chatCompletion(
              ctx(redact, { [KEY]: secret, AGENT_LLM_BASE_URL: server.url }),
              request,
            ).catch((x) => x)) as KitError;
            if (e.code !== "CREDENTIAL_REJECTED")
              throw new Error(`expected CREDENTIAL_REJECTED, got ${e.code}: ${e.message}`);
            const leak = leakOf(secret, e.message, ...emitted(e, redact));
            if (leak > MASK_KEEPS)
              throw new Error(
                `${leak} characters of ${JSON.stringify(secret)} left as ${JSON.stringify(form)} cut ${offset} in: ${e.message}`,
              );
          }
      }),
      { numRuns: 25 },
    );
    expect(server.requests.length).toBeGreaterThan(25 * 16);
  }, 120_000);
});
