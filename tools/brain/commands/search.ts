import * as z from "agent-cli-kit/schema";
import { defineCommand, describe } from "agent-cli-kit";
import { REPO_VARS, repoFlag, tagFlag } from "../lib/flags.ts";
import { queryTerms } from "../lib/query-terms.ts";
import { openNotes } from "../lib/read-notes.ts";
import { openRepo } from "../lib/repo.ts";
import { unreadable } from "./shared.ts";

const SNIPPET = 160;

/** The body around the first query term it contains, on word boundaries; given the body redacted, so no cut falls inside a secret. */
function snippetOf(body: string, terms: readonly string[]): string {
  const flat = body.replace(/\s+/g, " ").trim();
  const lower = flat.toLowerCase();
  const at = Math.min(
    ...terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0),
    Number.POSITIVE_INFINITY,
  );
  if (!Number.isFinite(at)) return flat.slice(0, SNIPPET);
  const start = Math.max(0, flat.lastIndexOf(" ", Math.max(0, at - SNIPPET / 3)) + 1);
  const text = flat.slice(start, start + SNIPPET);
  return `${start > 0 ? "…" : ""}${text}${start + SNIPPET < flat.length ? "…" : ""}`;
}

export default defineCommand({
  verb: "search",
  tier: 2,
  rw: "read",
  summary: "Ranked full-text search over titles, tags and bodies, with snippets and scores.",
  description:
    "BM25 ranking (SQLite FTS5, from the repository's persisted note index) over every word of the query as a prefix, any of them matching; a title match weighs 3, tags 2, the body 1. Best first; equal scores by id.",
  flags: z.object({
    repo: repoFlag,
    query: describe(z.string().check(z.minLength(1), z.maxLength(500)), "What to look for."),
    tag: tagFlag("Only notes with every one of these tags."),
  }),
  result: z.object({
    items: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        tags: z.array(z.string()),
        score: z.number(),
        matched: z.array(z.string()),
        snippet: z.string(),
      }),
    ),
    unreadable,
  }),
  schema: "brain.search@1",
  errors: ["INVALID_INPUT", "IN_PROGRESS", "CONFLICT"],
  env: REPO_VARS,
  list: { defaultLimit: 10, maxLimit: 100 },
  examples: [
    {
      argv: ["--repo", "./knowledge", "--query", "sharpening spades"],
      summary: "Notes about sharpening spades, best first.",
    },
  ],
  async run(ctx) {
    const tags = ctx.flags.tag ?? [];
    const window = ctx.page!;
    const index = await openNotes(ctx, openRepo(ctx.flags.repo, ctx.env, ctx.cwd), (notes) =>
      notes.search(ctx.flags.query, tags, window),
    );
    try {
      const page = ctx.paginate(index.search(ctx.flags.query, tags, window), "results");
      const terms = queryTerms(ctx.flags.query);
      const items = page.map(({ note: n, score }) => {
        const body = n.body ?? "";
        const words = new Set(
          `${n.title} ${n.tags.join(" ")} ${body}`
            .normalize("NFKC")
            .toLowerCase()
            .match(/[\p{L}\p{N}]+/gu) ?? [],
        );
        const matched = terms.filter((t) => [...words].some((w) => w.startsWith(t)));
        return {
          id: n.id,
          title: n.title,
          tags: n.tags,
          score,
          matched,
          snippet: snippetOf(ctx.redact(body), matched.length ? matched : terms),
        };
      });
      return { items, unreadable: index.unreadable() };
    } finally {
      index.close();
    }
  },
});
