import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError } from "agent-cli-kit";
import { PLAN_LIST, planResult, ttlFlag, writePlan } from "agent-cli-kit/writes";
import { bodyFileFlag, bodyFlag, idFlag, REPO_VARS, repoFlag, sourceFlag, tagFlag } from "../lib/flags.ts";
import { checkId, requireNote } from "../lib/notes.ts";
import { cleanRepo, noteInput, noteParams } from "../lib/plan-notes.ts";

export default defineCommand({
  resource: "note",
  verb: "update",
  tier: 1,
  rw: "write",
  summary:
    "Plan a change to a note: only the fields given change. The plan records the blob it saw; if the note changes before apply, the item fails.",
  flags: z.object({
    repo: repoFlag,
    id: idFlag,
    title: describe(z.optional(z.string().check(z.minLength(1), z.maxLength(300))), "A new title."),
    tag: tagFlag("The new tags, replacing the old (repeat for several)."),
    source: sourceFlag,
    body: bodyFlag,
    bodyFile: bodyFileFlag,
    ttl: ttlFlag,
  }),
  result: planResult,
  list: PLAN_LIST,
  schema: "brain.note.update@1",
  next: ["gate review --plan {run_dir}"],
  errors: [
    "INVALID_INPUT",
    "INVALID_VALUE",
    "NOT_FOUND",
    "PRECONDITION_FAILED",
    "CONFLICTING_FLAGS",
    "UPSTREAM_ERROR",
    "CONFLICT",
    "IN_PROGRESS",
  ],
  env: REPO_VARS,
  examples: [
    {
      argv: ["--repo", "./knowledge", "--id", "harbour-history", "--tag", "history", "--tag", "people"],
      summary: "Plan new tags for a note.",
    },
  ],
  async run(ctx) {
    return writePlan(
      ctx,
      async () => {
        const repo = await cleanRepo(ctx);
        const id = checkId(ctx.flags.id);
        const note = requireNote(repo.root, id);
        const input = await noteInput(ctx);
        const next = {
          id,
          title: input.title ?? note.title,
          tags: input.tags ?? note.tags,
          source: input.source ?? note.source,
          body: input.body ?? note.body,
        };
        const same =
          next.title === note.title &&
          next.source === note.source &&
          next.body === note.body &&
          JSON.stringify(next.tags) === JSON.stringify(note.tags);
        if (same)
          throw new KitError("INVALID_INPUT", `the update leaves note ${id} as it is`, {
            hint: "give at least one of --title, --tag, --source, --body, --body-file with a new value",
          });
        return {
          context: { repo: repo.root },
          items: [
            {
              action: "update-note",
              reason: `update note ${id}`,
              params: noteParams(next),
              preconditions: [{ target: id, version: note.blob }],
            },
          ],
        };
      },
      ctx.flags.ttl,
    );
  },
});
