/**
 * The write side of brain's `memory` MCP profile (mcp.ts): a save writes a
 * plan with brain's own `note create` or `note update`, which goes through
 * the gate and `apply` where the standing policy approves it, and otherwise
 * answers with the plan and APPROVAL_REQUIRED.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type ErrorCode, KitError } from "agent-cli-kit";
import {
  type CommandAnswer,
  errorAnswer,
  type ProfileContext,
  type RunCommand,
  type ToolAnswer,
} from "agent-cli-kit/mcp";
import { failed, PROFILE_ID, profileBody } from "./memory-read.ts";
import { slugOf } from "./notes.ts";

const MAX_FACT = 2000;
const FACT_HINT = 'give { fact: "…" }, or messages with user and assistant roles';

type Message = { role: string; content: string };

/** A call refused before any command runs: a code of the kit's table, never a free string. */
const refused = (code: ErrorCode, message: string, hint?: string): ToolAnswer =>
  errorAnswer(new KitError(code, message, hint ? { hint } : {}));

/** The answers that hand a plan to a person, whose folder is kept. */
const WAITING = new WeakSet<ToolAnswer>();

/** The policy's refusal of a save: the plan waits for a person, and the answer names it. */
function waitingFor(review: CommandAnswer, plan: string, runDir: string): ToolAnswer {
  const code: ErrorCode = review.error?.code === "POLICY_DENIED" ? "POLICY_DENIED" : "APPROVAL_REQUIRED";
  const why = new KitError(code, `the standing policy does not approve this save: ${String(review.error?.message)}`, {
    hint: `a person the policy names as an approver runs \`gate approve --plan ${runDir}\` with their own key in AGENT_APPROVER_KEY; then \`brain apply --plan ${runDir}\``,
  });
  const waiting = errorAnswer(why, { plan });
  WAITING.add(waiting);
  return waiting;
}

/** A plan in `runDir` through the gate and apply: saved, or the plan waiting for a person. */
async function save(run: RunCommand, planned: CommandAnswer, runDir: string, note: string): Promise<ToolAnswer> {
  if (!planned.ok) return failed(planned);
  const plan = planned.data as { plan: string; checksum: string };
  const review = await run(["review"], { tool: "gate", input: { plan: runDir } });
  // Only the policy's refusal (exit 5) waits for a person; any other failure of the review (CANCELLED, say) is the call's.
  if (!review.ok) return review.exit === 5 ? waitingFor(review, plan.plan, runDir) : failed(review);
  const applied = await run(["apply"], { input: { plan: runDir } });
  // The argv door's hint names `brain apply --plan …`, a command this door has no tool for.
  if (!applied.ok) {
    const hint = applied.error?.retryable ? "call this tool again with the same arguments" : applied.error?.hint;
    return { isError: true, text: JSON.stringify({ ...applied.error, hint }) };
  }
  const status = { saved: true, note, plan: plan.checksum, executed: (applied.data as { executed: number }).executed };
  return { text: JSON.stringify(status), structured: status };
}

/**
 * A save's working files (its plan, the raw conversation text among it, and
 * its ledger) live in a folder only this user may enter, and go when the save
 * ends, saved or failed. A plan waiting for a person stays: the answer names
 * it, and approving it needs it.
 */
export async function saving(ctx: ProfileContext, save: (runDir: string) => Promise<ToolAnswer>): Promise<ToolAnswer> {
  const runDir = mkdtempSync(join(ctx.tmpdir, "brain-memory-")); // mode 0700
  let answer: ToolAnswer | undefined;
  try {
    answer = await save(runDir);
    return answer;
  } finally {
    if (!answer || !WAITING.has(answer)) rmSync(runDir, { recursive: true, force: true });
  }
}

const isMessage = (m: unknown): m is { role: string; content?: unknown; text?: unknown } =>
  !!m &&
  typeof m === "object" &&
  typeof (m as { role?: unknown }).role === "string" &&
  typeof ((m as { content?: unknown }).content ?? (m as { text?: unknown }).text) === "string";

/** The messages given (a list, or one as role with content or text); null when they are not that. */
function messagesOf(args: Record<string, unknown>): Message[] | null {
  if (Array.isArray(args.messages))
    return args.messages.every(isMessage)
      ? args.messages.map((m) => ({ role: m.role, content: String(m.content ?? m.text) }))
      : null;
  const text = args.content ?? args.text;
  return typeof args.role === "string" && typeof text === "string" ? [{ role: args.role, content: text }] : null;
}

/** The fact a save records: `fact`, or the user's and assistant's messages; a refusal when neither is usable. */
function factOf(args: Record<string, unknown>): string | ToolAnswer {
  let fact = typeof args.fact === "string" ? args.fact : null;
  // Messages are checked whenever given: a tool's words never reach the profile, whatever comes beside them.
  if (args.messages !== undefined) {
    const messages = messagesOf(args);
    if (!messages) return refused("INVALID_VALUE", "messages must be a list of { role, content }");
    const other = messages.find((m) => m.role !== "user" && m.role !== "assistant");
    if (other)
      return refused(
        "INVALID_VALUE",
        `mem_save_fact takes user and assistant messages only (got role '${other.role}')`,
        "record a tool's output with mem_save_turn",
      );
    if (fact !== null) return refused("INVALID_VALUE", "give fact or messages, not both", FACT_HINT);
    fact = messages.map((m) => m.content).join(" ");
  }
  fact = fact?.replace(/\s+/g, " ").trim() ?? "";
  if (!fact || fact.length > MAX_FACT)
    return refused("INVALID_VALUE", `fact must be 1 to ${MAX_FACT} characters`, FACT_HINT);
  return fact;
}

/** mem_save_fact: the fact appended to the profile note (made if there is none). */
export async function saveFact(run: RunCommand, args: Record<string, unknown>, runDir: string): Promise<ToolAnswer> {
  const fact = factOf(args);
  if (typeof fact !== "string") return fact;
  const profile = await profileBody(run);
  if ("failed" in profile) return failed(profile.failed);
  const { body } = profile;
  const next = `${body?.trimEnd() ? `${body.trimEnd()}\n` : ""}- ${fact}\n`;
  const planned =
    body === null
      ? await run(["note", "create"], {
          input: { id: PROFILE_ID, title: "Profile", tag: ["profile"], body: next, "run-dir": runDir },
        })
      : await run(["note", "update"], { input: { id: PROFILE_ID, body: next, "run-dir": runDir } });
  return save(run, planned, runDir, PROFILE_ID);
}

/** mem_save_turn: the turn as an episode note of its own, named by its session and the context's clock. */
export async function saveTurn(
  run: RunCommand,
  args: Record<string, unknown>,
  runDir: string,
  ctx: ProfileContext,
): Promise<ToolAnswer> {
  const messages = messagesOf(args);
  if (!messages || messages.length === 0)
    return refused("INVALID_VALUE", "give messages: [{ role, content }], or role with content (or text)");
  const session = slugOf(typeof args.sessionKey === "string" ? args.sessionKey : "session");
  const at = Math.floor(ctx.now());
  // The time, and a random tail: two turns saved in one millisecond (by two servers) are two notes.
  const id = `turn-${session}-${at.toString(36)}-${crypto.randomUUID().slice(0, 6)}`;
  const body = messages.map((m) => `**${m.role}**: ${m.content}`).join("\n\n");
  const planned = await run(["note", "create"], {
    input: {
      id,
      title: `Turn of ${session} at ${new Date(at).toISOString()}`,
      tag: ["episode", `session-${session}`],
      body,
      "run-dir": runDir,
    },
  });
  return save(run, planned, runDir, id);
}
