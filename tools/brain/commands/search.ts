import MiniSearch from "minisearch";
import * as z from "zod/mini";
import { defineCommand, describe } from "../../../src/kit/index.ts";
import { REPO_VARS, repoFlag, tagFlag } from "../lib/flags.ts";
import type { Note } from "../lib/notes.ts";
import { readNotes } from "../lib/read-notes.ts";
import { unreadable } from "./shared.ts";

const SNIPPET = 160;

/** The body around the first query term it contains, on word boundaries. */
function snippetOf(body: string, terms: readonly string[]): string {
  const flat = body.replace(/\s+/g, " ").trim();
  const lower = flat.toLowerCase();
  const at = Math.min(...terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0), Number.POSITIVE_INFINITY);
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
  description: "BM25-style ranking (minisearch) with prefix and fuzzy matching; a title match weighs most, then tags. Best first.",
  flags: z.object({
    repo: repoFlag,
    query: describe(z.string().check(z.minLength(1), z.maxLength(500)), "What to look for."),
    tag: tagFlag("Only notes with every one of these tags."),
  }),
  result: z.object({
    items: z.array(z.object({ id: z.string(), title: z.string(), tags: z.array(z.string()), score: z.number(), matched: z.array(z.string()), snippet: z.string() })),
    unreadable,
  }),
  schema: "brain.search@1",
  errors: ["INVALID_INPUT"],
  env: REPO_VARS,
  list: { defaultLimit: 10, maxLimit: 100 },
  examples: [{ argv: ["--repo", "./knowledge", "--query", "sharpening spades"], summary: "Notes about sharpening spades, best first." }],
  async run(ctx) {
    const { notes, unreadable: bad } = readNotes(ctx);
    const byId = new Map<string, Note>(notes.map((n) => [n.id, n]));
    const index = new MiniSearch<{ id: string; title: string; tags: string; body: string }>({ fields: ["title", "tags", "body"], searchOptions: { boost: { title: 3, tags: 2 }, prefix: true, fuzzy: 0.2 } });
    index.addAll(notes.map((n) => ({ id: n.id, title: n.title, tags: n.tags.join(" "), body: n.body })));
    const hits = index.search(ctx.flags.query).map((h) => {
      const n = byId.get(String(h.id))!;
      return { id: n.id, title: n.title, tags: n.tags, score: Math.round(h.score * 1000) / 1000, matched: h.terms, snippet: snippetOf(n.body, h.queryTerms) };
    });
    return { items: ctx.paginate(hits, "results"), unreadable: bad };
  },
});
