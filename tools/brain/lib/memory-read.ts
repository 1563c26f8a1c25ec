/**
 * The read side of brain's `memory` MCP profile (mcp.ts): markdown for a
 * model's context, made from brain's own `search` and `note get` run as the
 * argv door runs them.
 */
import type { CommandAnswer, RunCommand, ToolAnswer } from "agent-cli-kit/mcp";

/** The note mem_save_fact appends to, and mem_context shows first. */
export const PROFILE_ID = "profile";
const TOP_K = { default: 5, cap: 50 };

/** A command's failure, as the call's: its error object is already the contract's. */
export const failed = (a: CommandAnswer): ToolAnswer => ({ isError: true, text: JSON.stringify(a.error) });

/** The seed's rule: default 5, at most 50, a non-positive or unreadable value is the default. */
export function topKOf(raw: unknown): number {
  const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? Math.min(n, TOP_K.cap) : TOP_K.default;
}

interface Hit {
  id: string;
  title: string;
  tags: string[];
  score: number;
  snippet: string;
}

const line = (i: Hit): string => {
  const tags = i.tags.length ? `; ${i.tags.join(", ")}` : "";
  return `- **${i.title}** (\`${i.id}\`${tags}): ${i.snippet.replace(/\s+/g, " ").trim()}`;
};

/** The notes matching `query`, best first, as a markdown list; or the failed search. */
export async function searchMarkdown(
  run: RunCommand,
  query: string,
  topK: number,
): Promise<{ text: string } | { failed: CommandAnswer }> {
  const r = await run(["search"], { input: { query, limit: topK } });
  if (!r.ok) return { failed: r };
  const items = (r.data!.items ?? []) as Hit[];
  if (items.length === 0) return { text: `_No note matches "${query}"._` };
  return { text: items.map(line).join("\n") };
}

/** The profile note's body (null when there is none yet), or the failed read. */
export async function profileBody(run: RunCommand): Promise<{ body: string | null } | { failed: CommandAnswer }> {
  const r = await run(["note", "get"], { input: { id: PROFILE_ID } });
  if (r.ok) return { body: String((r.data as { body?: string }).body ?? "") };
  return r.error?.code === "NOT_FOUND" ? { body: null } : { failed: r };
}

/** The profile, then (for a query that is not blank) the notes that match it. */
export async function context(run: RunCommand, query: string): Promise<ToolAnswer> {
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
