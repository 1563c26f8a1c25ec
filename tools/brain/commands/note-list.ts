import * as z from "zod/mini";
import { defineCommand, describe } from "../../../src/kit/index.ts";
import { REPO_VARS, repoFlag, tagFlag } from "../lib/flags.ts";
import { openNotes } from "../lib/read-notes.ts";
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
    text: describe(z.optional(z.string().check(z.minLength(1))), "Only notes whose title or body contains this text (case-insensitive)."),
  }),
  result: z.object({ items: z.array(noteSummary), unreadable }),
  schema: "brain.note.list@1",
  errors: ["INVALID_INPUT"],
  env: REPO_VARS,
  list: { defaultLimit: 20, maxLimit: 500 },
  examples: [{ argv: ["--repo", "./knowledge", "--tag", "seo"], summary: "Notes tagged seo." }],
  async run(ctx) {
    const index = openNotes(ctx);
    try {
      const tags = ctx.flags.tag ?? [];
      const text = ctx.flags.text?.toLowerCase();
      const hits = index
        .notes({ body: text !== undefined })
        .filter((n) => tags.every((t) => n.tags.includes(t)))
        .filter((n) => !text || n.title.toLowerCase().includes(text) || n.body!.toLowerCase().includes(text));
      const page = ctx.paginate(hits.map(({ body: _b, blob: _h, ...summary }) => summary), "notes");
      return { items: page, unreadable: index.unreadable() };
    } finally {
      index.close();
    }
  },
});
