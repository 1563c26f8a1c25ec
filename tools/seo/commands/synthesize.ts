import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError, sha256 } from "agent-cli-kit";
import { chatCompletion } from "agent-cli-kit/llm";
import type { AuditData, ScoreData } from "../lib/artifacts.ts";
import { PROMPT_VERSION, promptAudit, promptFor } from "../lib/prompt.ts";

const KEY = "OPENROUTER_API_KEY";
/** The key's endpoint comes with the key, from the environment: no flag or MCP argument can send it elsewhere. */
const ENDPOINT = "AGENT_LLM_BASE_URL";
const DEFAULT_BASE_URL = "https://openrouter.ai/api/v1";

const action = z.object({
  priority: describe(z.int(), "1 is most urgent."),
  title: z.string(),
  why: z.string(),
  rules: z.array(z.string()),
  pages: z.array(z.string()),
});

export default defineCommand({
  verb: "synthesize",
  tier: 2,
  rw: "read",
  summary:
    "Turn the audit and score into a prioritised action report for a person, through a chat model; write synthesize.json.",
  description:
    "Reads audit.json and score.json, asks an OpenAI-compatible chat-completions endpoint (OpenRouter by default) for a prioritised report, and records the model, prompt version and input checksum, so a new prompt can be replayed against an old audit. meta.llm_tokens and meta.cost_usd come from the response's usage and the price table. 429 and 5xx answers are retried with backoff, then reported as retryable (exit 4).",
  flags: z.object({
    model: describe(
      z.optional(z.string().check(z.minLength(1))),
      "The model id (default: AGENT_LLM_MODEL, else openai/gpt-4o-mini).",
    ),
    timeout: describe(
      z._default(z.int().check(z.minimum(100), z.maximum(600_000)), 60_000),
      "Milliseconds to wait for the answer before giving up (exit 4).",
    ),
  }),
  result: z.object({
    model: z.string(),
    prompt_version: z.string(),
    input_checksum: z.string(),
    summary: z.string(),
    actions: z.array(action),
    usage: z.object({ prompt_tokens: z.int(), completion_tokens: z.int(), total_tokens: z.int() }),
    cost_usd: describe(z.nullable(z.number()), "From the price table; null when the model's price is not known."),
    dry_run: z.boolean(),
    artifact: z.nullable(z.string()),
  }),
  schema: "seo.synthesize@1",
  errors: [
    "MISSING_ARTIFACT",
    "INVALID_ARTIFACT",
    "MISSING_ENV",
    "CREDENTIAL_REJECTED",
    "RATE_LIMITED",
    "UPSTREAM_ERROR",
    "UPSTREAM_TIMEOUT",
    "NETWORK_ERROR",
  ],
  env: [
    { name: KEY, scope: "read", required: true, description: "The API key for the chat endpoint." },
    { name: "AGENT_LLM_MODEL", scope: "config", description: "The default model id." },
    {
      name: ENDPOINT,
      scope: "config",
      description: `The OpenAI-compatible base URL ${KEY} is issued for (default ${DEFAULT_BASE_URL}); the key is sent nowhere else.`,
    },
  ],
  stage: { writes: "synthesize", reads: ["audit", "score"] },
  outcome: "usd",
  examples: [{ argv: ["--run-dir", "./run"], summary: "Write the action report for the audit in ./run." }],
  async run(ctx) {
    const audit = ctx.runDir.read<AuditData>("audit");
    const score = ctx.runDir.read<ScoreData>("score");
    const model = ctx.flags.model ?? ctx.env.AGENT_LLM_MODEL ?? "openai/gpt-4o-mini";
    const messages = promptFor(promptAudit(ctx.runDir.path, audit.data), score.data);
    const inputChecksum = sha256(`${audit.input_checksum}\n${score.input_checksum}\n${JSON.stringify(messages)}`);
    if (ctx.dryRun)
      return {
        model,
        prompt_version: PROMPT_VERSION,
        input_checksum: inputChecksum,
        summary: "",
        actions: [],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        cost_usd: 0,
        dry_run: true,
        artifact: null,
      };
    const answer = await chatCompletion(ctx, {
      keyVariable: KEY,
      endpointVariable: ENDPOINT,
      defaultBaseUrl: DEFAULT_BASE_URL,
      model,
      messages,
      timeoutMs: ctx.flags.timeout,
      jsonMode: true,
    });
    const report = parseReport(answer.content, ctx.redact);
    const data = {
      model: answer.model,
      prompt_version: PROMPT_VERSION,
      input_checksum: inputChecksum,
      ...report,
      usage: answer.usage,
      cost_usd: answer.cost_usd,
    };
    const written = ctx.runDir.write("synthesize", data, { model: answer.model, promptVersion: PROMPT_VERSION });
    ctx.setOutcome({ realized: answer.cost_usd ?? 0, confidence: answer.cost_usd === null ? 0 : 1 });
    return { ...data, dry_run: false, artifact: written.path };
  },
});

function parseReport(
  content: string,
  redact: (text: string) => string,
): { summary: string; actions: z.output<typeof action>[] } {
  let doc: { summary?: unknown; actions?: unknown };
  try {
    doc = JSON.parse(content.replace(/^```(json)?\s*|\s*```\s*$/g, ""));
  } catch {
    throw new KitError("UPSTREAM_ERROR", "the model did not answer with the JSON report asked for", {
      hint: "try again, or another --model",
      detail: { answer: redact(content).slice(0, 500) },
    }); // redacted, then cut
  }
  const list = Array.isArray(doc.actions) ? doc.actions : [];
  const strings = (x: unknown) => (Array.isArray(x) ? x.filter((s): s is string => typeof s === "string") : []);
  const actions = list
    .filter((a): a is Record<string, unknown> => typeof a === "object" && a !== null)
    .map((a, i) => ({
      priority: Number.isInteger(a.priority) ? (a.priority as number) : i + 1,
      title: String(a.title ?? ""),
      why: String(a.why ?? ""),
      rules: strings(a.rules),
      pages: strings(a.pages),
    }))
    .sort((a, b) => a.priority - b.priority);
  return { summary: typeof doc.summary === "string" ? doc.summary : "", actions };
}
