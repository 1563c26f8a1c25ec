/**
 * A step's stdout checked against the contract's envelope (§2) before it is
 * folded: a tool that lies (a cost as a string, negative tokens, a schema of
 * another tool's namespace) is a failed step with a clear error, never a
 * number the harness sums or a report the receiver refuses.
 */
import type { StepEnvelope } from "./fold.ts";

/** Bounds a sum of 100 steps keeps exact and finite. */
export const MAX_STEP_USD = 1_000_000;
export const MAX_STEP_TOKENS = 1_000_000_000_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
type Redact = (text: string) => string;

/** A value as a problem quotes it: redacted first, then cut (a secret cut in half would no longer match). */
const shownBy =
  (redact: Redact) =>
  (v: unknown): string => {
    const text = redact(JSON.stringify(v) ?? String(v));
    return text.length > 40 ? `${text.slice(0, 40)}…` : text;
  };

/** The first way `env` breaks the envelope a step of `tool` must print, as "path: what", or null. */
function breach(env: Record<string, unknown>, tool: string, redact: Redact): string | null {
  const shown = shownBy(redact);
  const meta = env.meta;
  if (typeof env.ok !== "boolean") return `ok: must be true or false (got ${shown(env.ok)})`;
  if (env.tool !== tool) return `tool: must be "${tool}", the step's tool (got ${shown(env.tool)})`;
  if (typeof env.command !== "string" || env.command === "")
    return `command: must be a command name (got ${shown(env.command)})`;
  if (!isObject(meta)) return `meta: must be an object (got ${shown(meta)})`;
  const { cost_usd: usd, llm_tokens: tokens, schema, next } = meta;
  if (typeof usd !== "number" || !Number.isFinite(usd) || usd < 0 || usd > MAX_STEP_USD)
    return `meta.cost_usd: must be a number from 0 to ${MAX_STEP_USD} (got ${shown(usd)})`;
  if (typeof tokens !== "number" || !Number.isSafeInteger(tokens) || tokens < 0 || tokens > MAX_STEP_TOKENS)
    return `meta.llm_tokens: must be a whole number from 0 to ${MAX_STEP_TOKENS} (got ${shown(tokens)})`;
  if (schema !== null && (typeof schema !== "string" || !schema.startsWith(`${tool}.`)))
    return `meta.schema: must be null or a schema id of ${tool} ("${tool}.…") (got ${shown(schema)})`;
  if (next !== undefined && (!Array.isArray(next) || !next.every((n) => typeof n === "string")))
    return `meta.next: must be a list of commands (got ${shown(next)})`;
  const secrets = meta.secrets_out;
  if (secrets !== undefined && (!isObject(secrets) || !Object.values(secrets).every((v) => typeof v === "string")))
    return "meta.secrets_out: must be an object of secret names to strings";
  if (env.ok && (env.error !== null || typeof schema !== "string"))
    return "ok: a successful envelope has error null and names its meta.schema";
  if (!env.ok) {
    const e = env.error;
    if (
      !isObject(e) ||
      typeof e.code !== "string" ||
      !/^[A-Z][A-Z0-9_]*$/.test(e.code) ||
      typeof e.message !== "string"
    )
      return `error: a failed envelope carries { code, message } (got ${shown(e)})`;
    if (env.data !== null && env.data !== undefined) return "data: a failed envelope carries no data";
  }
  return null;
}

/** The envelope in a step's stdout, or what is wrong with it. */
export function envelopeOf(
  stdout: string,
  tool: string,
  redact: Redact = (t) => t,
): { envelope: StepEnvelope } | { problem: string; malformed: boolean } {
  const text = stdout.trim();
  if (!text) return { problem: "nothing on stdout", malformed: false };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { problem: `stdout was not one envelope: ${redact(text).slice(0, 120)}`, malformed: false };
  }
  if (!isObject(raw))
    return { problem: `stdout was not one envelope: ${redact(text).slice(0, 120)}`, malformed: false };
  const wrong = breach(raw, tool, redact);
  if (wrong) return { problem: `the step's envelope breaks the contract at ${wrong}`, malformed: true };
  const meta = raw.meta as Record<string, unknown>;
  const envelope: StepEnvelope = {
    ok: raw.ok as boolean,
    tool,
    command: raw.command as string,
    data: raw.ok ? (raw.data ?? null) : null,
    error: raw.ok ? null : (raw.error as Record<string, unknown>),
    meta: {
      schema: (meta.schema as string | null) ?? null,
      cost_usd: meta.cost_usd as number,
      llm_tokens: meta.llm_tokens as number,
      outcome: meta.outcome ?? null,
      ...(meta.next ? { next: meta.next as string[] } : {}),
      ...(isObject(meta.secrets_out) ? { secrets_out: meta.secrets_out as Record<string, string> } : {}),
    },
  };
  return { envelope };
}
