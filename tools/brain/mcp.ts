/**
 * brain's `memory` MCP profile: the memory-server surface of the host-agent
 * seed (`brain --mcp --profile memory`), over the notes repository
 * AGENT_BRAIN_REPO names. Every tool is brain's own commands run as the argv
 * door runs them: reads are `search` and `note get` (lib/memory-read.ts); a
 * save writes a plan, which goes through the gate and `apply` where the
 * standing policy approves it, and otherwise answers with the plan and
 * APPROVAL_REQUIRED (lib/memory-save.ts). A caller's values (a query, a
 * fact) reach a command only in its --params document, never as argv words
 * a parser could read as flags. The process (its environment, folders and
 * clock) is the profile context the kit passes in.
 */
import * as z from "agent-cli-kit/schema";
import { describe, KitError } from "agent-cli-kit";
import {
  errorAnswer,
  type McpExtension,
  type McpExtensionModule,
  ResourceError,
  type RunCommand,
  type ToolAnswer,
} from "agent-cli-kit/mcp";
import { context, failed, searchMarkdown, topKOf } from "./lib/memory-read.ts";
import { saveFact, saveTurn, saving } from "./lib/memory-save.ts";
import { openRepo } from "./lib/repo.ts";

const SAVED_HOW =
  "Saved through the gate and apply where the standing policy approves; else the plan waits for a person (APPROVAL_REQUIRED).";

const message = z.object({
  role: describe(z.string(), "Who spoke: user, assistant, tool, …"),
  content: describe(z.optional(z.string()), "What was said."),
  text: describe(z.optional(z.string()), "The same as content, by its other name."),
});
const messages = describe(z.optional(z.array(message)), "The conversation's messages, in order.");

const input = {
  context: z.object({ query: describe(z.string(), "What the context is for.") }),
  search: z.object({
    query: describe(z.string(), "What to look for."),
    topK: describe(z.optional(z.int()), "How many (default 5, at most 50; non-positive: the default)."),
  }),
  fact: z.object({ fact: describe(z.optional(z.string()), "The fact."), messages }),
  turn: z.object({
    messages,
    role: describe(z.optional(z.string()), "One message's speaker, with content (or text): the older form."),
    content: z.optional(z.string()),
    text: z.optional(z.string()),
    sessionKey: describe(z.optional(z.string()), "Groups turns of one session."),
    flush: describe(z.optional(z.boolean()), "Accepted for compatibility: every turn is saved at once."),
  }),
};

const missingQuery = (message: string): ToolAnswer =>
  errorAnswer(new KitError("MISSING_FLAG", message, { hint: 'give { query: "…" }' }));

const RESOURCES = "resources: mem://profile, mem://search?q=…";

/** mem://profile and mem://search?q=…&topK=…, answered as their tools answer. */
async function readResource(uri: string, run: RunCommand): Promise<{ text: string; mimeType: string }> {
  const url = URL.parse(uri);
  if (!url) throw new ResourceError("unknown", `not a resource: ${uri}`);
  if (url.protocol === "mem:" && url.host === "profile") {
    const a = await context(run, "");
    if (a.isError) throw new ResourceError("other", a.text);
    return { text: a.text, mimeType: "text/markdown" };
  }
  if (url.protocol !== "mem:" || url.host !== "search")
    throw new ResourceError("unknown", `unknown resource ${uri}; ${RESOURCES}`);
  const q = url.searchParams.get("q") ?? url.searchParams.get("query") ?? "";
  if (!q.trim()) throw new ResourceError("other", "mem://search needs a query: mem://search?q=…");
  const topK = topKOf(url.searchParams.get("topK") ?? url.searchParams.get("top_k") ?? undefined);
  const found = await searchMarkdown(run, q, topK);
  if ("failed" in found) throw new ResourceError("other", JSON.stringify(found.failed.error));
  return { text: found.text, mimeType: "text/markdown" };
}

const memory: McpExtension = {
  tools: [
    {
      name: "mem_context",
      description:
        "Markdown context for a query, to splice into a model's context as-is: the profile, then the notes that match.",
      input: input.context,
      annotations: { readOnlyHint: true },
    },
    {
      name: "mem_search",
      description: "Notes matching a query, best first, as a markdown list.",
      input: input.search,
      annotations: { readOnlyHint: true },
    },
    {
      name: "mem_save_fact",
      description: `Record a durable fact about the user in the profile note (refuses tool roles). ${SAVED_HOW}`,
      input: input.fact,
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    {
      name: "mem_save_turn",
      description: `Record a conversation turn as an episode note. ${SAVED_HOW}`,
      input: input.turn,
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
  boot(ctx) {
    try {
      openRepo(undefined, ctx.env, ctx.cwd);
      return null;
    } catch (e) {
      return `${(e as Error).message} (AGENT_BRAIN_REPO names the notes repository this server reads and writes)`;
    }
  },
  async call(name, args, run, ctx) {
    if (name === "mem_context")
      return typeof args.query === "string"
        ? context(run, args.query)
        : missingQuery("query is required (an empty one gives the profile alone)");
    if (name === "mem_search") {
      const query = typeof args.query === "string" ? args.query : "";
      if (!query.trim()) return missingQuery("query is required");
      const found = await searchMarkdown(run, query, topKOf(args.topK));
      return "failed" in found ? failed(found.failed) : { text: found.text };
    }
    return saving(ctx, (runDir) =>
      name === "mem_save_fact" ? saveFact(run, args, runDir) : saveTurn(run, args, runDir, ctx),
    );
  },
  read: (uri, run) => readResource(uri, run),
};

export const profiles: McpExtensionModule["profiles"] = { memory };
