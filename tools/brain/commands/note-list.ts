import * as z from "agent-cli-kit/schema";
import { defineCommand, describe } from "agent-cli-kit";
import { REPO_VARS, repoFlag, tagFlag } from "../lib/flags.ts";
import { listFew, readFewNotes } from "../lib/few-notes.ts";
import { openNotes } from "../lib/read-notes.ts";
import { openRepo } from "../lib/repo.ts";
import { noteSummary, unreadable } from "./shared.ts";

export default defineCommand({
  resource: "note",
  verb: "list",
  tier: 1,
  rw: "read",
  summary: "List notes by id, filtered by tag and text; bounded, with cursors.",
  flags: z.object({
    repo: repoFlag,
    tag: tagFlag(),
    text: describe(
      z.optional(z.string().check(z.minLength(1))),
      "Only notes whose title or body contains this text (case-insensitive).",
    ),
  }),
  result: z.object({ items: z.array(noteSummary), unreadable }),
  schema: "brain.note.list@1",
  errors: ["INVALID_INPUT", "IN_PROGRESS", "CONFLICT"],
  env: REPO_VARS,
  list: { defaultLimit: 20, maxLimit: 500 },
  examples: [{ argv: ["--repo", "./knowledge", "--tag", "seo"], summary: "Notes tagged seo." }],
  async run(ctx) {
    const tags = ctx.flags.tag ?? [];
    const repo = openRepo(ctx.flags.repo, ctx.env, ctx.cwd);
    const few = readFewNotes(repo.root);
    if (few) {
      for (const b of few.unreadable) ctx.log.warn(`skipped ${b.id}: ${b.reason}`);
      return { items: ctx.paginate(listFew(few.notes, tags, ctx.flags.text), "notes"), unreadable: few.unreadable };
    }
    const window = ctx.page!;
    const index = await openNotes(ctx, repo, (notes) => notes.list(tags, ctx.flags.text, window));
    try {
      return { items: ctx.paginate(index.list(tags, ctx.flags.text, window), "notes"), unreadable: index.unreadable() };
    } finally {
      index.close();
    }
  },
});
