/**
 * brain's `memory` MCP profile: the memory-server surface of the host-agent
 * seed (`brain --mcp --profile memory`), over the notes repository
 * AGENT_BRAIN_REPO names. Every tool is brain's own commands run as the argv
 * door runs them: reads are `search` and `note get`; a save writes a plan,
 * which goes through the gate and `apply` where the standing policy
 * approves it, and otherwise answers with the plan and APPROVAL_REQUIRED.
 * A caller's values (a query, a fact) reach a command only in its --params
 * document, never as argv words a parser could read as flags.
 */
import {
  ResourceError,
  type CommandAnswer,
  type McpExtension,
  type McpExtensionModule,
  type RunCommand,
  type ToolAnswer,
} from "agent-cli-kit/mcp";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { slugOf } from "./lib/notes.ts";
import { openRepo } from "./lib/repo.ts";

const PROFILE_ID = "profile";
const TOP_K = { default: 5, cap: 50 };
const MAX_FACT = 2000;

type Message = { role: string; content: string };

const error = (code: string, message: string, extra: Record<string, unknown> = {}): ToolAnswer => ({
  isError: true,
  text: JSON.stringify({ code, message, retryable: false, ...extra }),
});
const failed = (a: CommandAnswer): ToolAnswer => ({ isError: true, text: JSON.stringify(a.error) });

/** The seed's rule: default 5, at most 50, a non-positive or unreadable value is the default. */
export function topKOf(raw: unknown): number {
  const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? Math.min(n, TOP_K.cap) : TOP_K.default;
}

async function searchMarkdown(
  run: RunCommand,
  query: string,
  topK: number,
): Promise<{ text: string } | { failed: CommandAnswer }> {
  const r = await run(["search"], { input: { query, limit: topK } });
  if (!r.ok) return { failed: r };
  const items = (r.data!.items ?? []) as {
    id: string;
    title: string;
    tags: string[];
    score: number;
    snippet: string;
  }[];
  if (items.length === 0) return { text: `_No note matches "${query}"._` };
  return {
    text: items
      .map(
        (i) =>
          `- **${i.title}** (\`${i.id}\`${i.tags.length ? `; ${i.tags.join(", ")}` : ""}): ${i.snippet.replace(/\s+/g, " ").trim()}`,
      )
      .join("\n"),
  };
}

/** The profile note's body (null when there is none yet), or the failed read. */
async function profileBody(run: RunCommand): Promise<{ body: string | null } | { failed: CommandAnswer }> {
  const r = await run(["note", "get"], { input: { id: PROFILE_ID } });
  if (r.ok) return { body: String((r.data as { body?: string }).body ?? "") };
  return r.error?.code === "NOT_FOUND" ? { body: null } : { failed: r };
}

async function context(run: RunCommand, query: string): Promise<ToolAnswer> {
  const profile = await profileBody(run);
  if ("failed" in profile) return failed(profile.failed);
  const { body } = profile;
  const parts = [`## Profile\n\n${body?.trim() || "_No profile yet: mem_save_fact records facts here._"}`];
  if (query.trim()) {
    const found = await searchMarkdown(run, query, TOP_K.default);
    if ("failed" in found) return failed(found.failed);
    parts.push(`## Matches for "${query}"\n\n${found.text}`);
  }
  return { text: parts.join("\n\n") };
}

/** A plan in `runDir` through the gate and apply: saved, or the plan waiting for a person. */
async function save(run: RunCommand, planned: CommandAnswer, runDir: string, note: string): Promise<ToolAnswer> {
  if (!planned.ok) return failed(planned);
  const plan = planned.data as { plan: string; checksum: string };
  const review = await run(["review"], { tool: "gate", input: { plan: runDir } });
  // Only the policy's refusal (exit 5) waits for a person; any other failure of the review (CANCELLED, say) is the call's.
  if (!review.ok && review.exit !== 5) return failed(review);
  if (!review.ok) {
    const code = String(review.error?.code ?? "APPROVAL_REQUIRED");
    const waiting = error(
      code === "POLICY_DENIED" ? code : "APPROVAL_REQUIRED",
      `the standing policy does not approve this save: ${String(review.error?.message)}`,
      {
        plan: plan.plan,
        hint: `a person the policy names as an approver runs \`gate approve --plan ${runDir}\` at a terminal, their key in AGENT_APPROVER_KEY; then \`brain apply --plan ${runDir}\``,
      },
    );
    WAITING.add(waiting);
    return waiting;
  }
  const applied = await run(["apply"], { input: { plan: runDir } });
  // The argv door's hint names `brain apply --plan …`, a command this door has no tool for.
  if (!applied.ok)
    return {
      isError: true,
      text: JSON.stringify({
        ...applied.error,
        hint: applied.error?.retryable ? "call this tool again with the same arguments" : applied.error?.hint,
      }),
    };
  const status = { saved: true, note, plan: plan.checksum, executed: (applied.data as { executed: number }).executed };
  return { text: JSON.stringify(status), structured: status };
}

/**
 * A save's working files (its plan, the raw conversation text among it, and
 * its ledger) live in a folder only this user may enter, and go when the save
 * ends, saved or failed. A plan waiting for a person stays: the answer names
 * it, and approving it needs it.
 */
async function saving(save: (runDir: string) => Promise<ToolAnswer>): Promise<ToolAnswer> {
  const runDir = mkdtempSync(join(tmpdir(), "brain-memory-")); // mode 0700
  let answer: ToolAnswer | undefined;
  try {
    answer = await save(runDir);
    return answer;
  } finally {
    if (!answer || !WAITING.has(answer)) rmSync(runDir, { recursive: true, force: true });
  }
}

/** The answers that hand a plan to a person, whose folder is kept. */
const WAITING = new WeakSet<ToolAnswer>();

const messagesOf = (args: Record<string, unknown>): Message[] | null => {
  if (Array.isArray(args.messages)) {
    const ok = args.messages.every(
      (m) => m && typeof m === "object" && typeof m.role === "string" && typeof (m.content ?? m.text) === "string",
    );
    return ok ? args.messages.map((m) => ({ role: m.role, content: String(m.content ?? m.text) })) : null;
  }
  const text = args.content ?? args.text;
  return typeof args.role === "string" && typeof text === "string" ? [{ role: args.role, content: text }] : null;
};

async function saveFact(run: RunCommand, args: Record<string, unknown>, runDir: string): Promise<ToolAnswer> {
  let fact = typeof args.fact === "string" ? args.fact : null;
  // Messages are checked whenever given: a tool's words never reach the profile, whatever comes beside them.
  if (args.messages !== undefined) {
    const messages = messagesOf(args);
    if (!messages) return error("INVALID_VALUE", "messages must be a list of { role, content }");
    const other = messages.find((m) => m.role !== "user" && m.role !== "assistant");
    if (other)
      return error("INVALID_VALUE", `mem_save_fact takes user and assistant messages only (got role '${other.role}')`, {
        hint: "record a tool's output with mem_save_turn",
      });
    if (fact !== null)
      return error("INVALID_VALUE", "give fact or messages, not both", {
        hint: 'give { fact: "…" }, or messages with user and assistant roles',
      });
    fact = messages.map((m) => m.content).join(" ");
  }
  fact = fact?.replace(/\s+/g, " ").trim() ?? "";
  if (!fact || fact.length > MAX_FACT)
    return error("INVALID_VALUE", `fact must be 1 to ${MAX_FACT} characters`, {
      hint: 'give { fact: "…" }, or messages with user and assistant roles',
    });
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

async function saveTurn(run: RunCommand, args: Record<string, unknown>, runDir: string): Promise<ToolAnswer> {
  const messages = messagesOf(args);
  if (!messages || messages.length === 0)
    return error("INVALID_VALUE", "give messages: [{ role, content }], or role with content (or text)");
  const session = slugOf(typeof args.sessionKey === "string" ? args.sessionKey : "session");
  const at = new Date();
  // The time, and a random tail: two turns saved in one millisecond (by two servers) are two notes.
  const id = `turn-${session}-${at.getTime().toString(36)}-${crypto.randomUUID().slice(0, 6)}`;
  const body = messages.map((m) => `**${m.role}**: ${m.content}`).join("\n\n");
  const planned = await run(["note", "create"], {
    input: {
      id,
      title: `Turn of ${session} at ${at.toISOString()}`,
      tag: ["episode", `session-${session}`],
      body,
      "run-dir": runDir,
    },
  });
  return save(run, planned, runDir, id);
}

const string = (description: string) => ({ type: "string", description });
const messages = {
  type: "array",
  items: {
    type: "object",
    properties: { role: { type: "string" }, content: { type: "string" }, text: { type: "string" } },
    required: ["role"],
  },
};

const memory: McpExtension = {
  tools: [
    {
      name: "mem_context",
      description:
        "Markdown context for a query, to splice into a model's context as-is: the profile, then the notes that match.",
      inputSchema: { type: "object", properties: { query: string("What the context is for.") }, required: ["query"] },
      annotations: { readOnlyHint: true },
    },
    {
      name: "mem_search",
      description: "Notes matching a query, best first, as a markdown list.",
      inputSchema: {
        type: "object",
        properties: {
          query: string("What to look for."),
          topK: { type: "integer", description: "How many (default 5, at most 50; non-positive: the default)." },
        },
        required: ["query"],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: "mem_save_fact",
      description:
        "Record a durable fact about the user in the profile note (refuses tool roles). Saved through the gate and apply where the standing policy approves; else the plan waits for a person (APPROVAL_REQUIRED).",
      inputSchema: { type: "object", properties: { fact: string("The fact."), messages } },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    {
      name: "mem_save_turn",
      description:
        "Record a conversation turn as an episode note. Saved through the gate and apply where the standing policy approves; else the plan waits for a person (APPROVAL_REQUIRED).",
      inputSchema: {
        type: "object",
        properties: {
          messages,
          role: { type: "string" },
          content: { type: "string" },
          text: { type: "string" },
          sessionKey: string("Groups turns of one session."),
          flush: { type: "boolean", description: "Accepted for compatibility: every turn is saved at once." },
        },
      },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
  ],
  resources: [
    {
      uri: "mem://profile",
      name: "profile",
      description: "mem_context with an empty query: the profile.",
      mimeType: "text/markdown",
    },
  ],
  resourceTemplates: [
    {
      uriTemplate: "mem://search?q={query}&topK={topK}",
      name: "search",
      description: "mem_search as a resource; an empty query is an error.",
      mimeType: "text/markdown",
    },
  ],
  boot(env) {
    try {
      openRepo(undefined, env, process.cwd());
      return null;
    } catch (e) {
      return `${(e as Error).message} (AGENT_BRAIN_REPO names the notes repository this server reads and writes)`;
    }
  },
  async call(name, args, run) {
    const query = typeof args.query === "string" ? args.query : "";
    if (name === "mem_context") {
      if (typeof args.query !== "string")
        return error("MISSING_FLAG", "query is required (an empty one gives the profile alone)", {
          hint: 'give { query: "…" }',
        });
      return context(run, query);
    }
    if (name === "mem_search") {
      if (!query.trim()) return error("MISSING_FLAG", "query is required", { hint: 'give { query: "…" }' });
      const found = await searchMarkdown(run, query, topKOf(args.topK));
      return "failed" in found ? failed(found.failed) : { text: found.text };
    }
    return saving((runDir) => (name === "mem_save_fact" ? saveFact(run, args, runDir) : saveTurn(run, args, runDir)));
  },
  async read(uri, run) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new ResourceError("unknown", `not a resource: ${uri}`);
    }
    if (url.protocol !== "mem:")
      throw new ResourceError("unknown", `unknown resource ${uri}; resources: mem://profile, mem://search?q=…`);
    const answer = async (a: ToolAnswer) => {
      if (a.isError) throw new ResourceError("other", a.text);
      return { text: a.text, mimeType: "text/markdown" };
    };
    if (url.host === "profile") return answer(await context(run, ""));
    if (url.host === "search") {
      const q = url.searchParams.get("q") ?? url.searchParams.get("query") ?? "";
      if (!q.trim()) throw new ResourceError("other", "mem://search needs a query: mem://search?q=…");
      const found = await searchMarkdown(
        run,
        q,
        topKOf(url.searchParams.get("topK") ?? url.searchParams.get("top_k") ?? undefined),
      );
      if ("failed" in found) throw new ResourceError("other", JSON.stringify(found.failed.error));
      return { text: found.text, mimeType: "text/markdown" };
    }
    throw new ResourceError("unknown", `unknown resource ${uri}; resources: mem://profile, mem://search?q=…`);
  },
};

export const profiles: McpExtensionModule["profiles"] = { memory };
