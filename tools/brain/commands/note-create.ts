import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError } from "agent-cli-kit";
import { PLAN_LIST, planResult, ttlFlag, writePlan } from "agent-cli-kit/writes";
import { bodyFileFlag, bodyFlag, REPO_VARS, repoFlag, sourceFlag, tagFlag } from "../lib/flags.ts";
import { checkId, getNote, slugOf } from "../lib/notes.ts";
import { cleanRepo, noteInput, noteParams } from "../lib/plan-notes.ts";

export default defineCommand({
  resource: "note",
  verb: "create",
  tier: 1,
  rw: "write",
  summary: "Plan a new note: writes plan.json to the run dir; the repository is untouched until `brain apply`.",
  flags: z.object({
    repo: repoFlag,
    title: describe(
      z.optional(z.string().check(z.minLength(1), z.maxLength(300))),
      "The note's title (or from --body-file's front matter).",
    ),
    id: describe(
      z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
      "The note's id (default: from the title).",
    ),
    tag: tagFlag(),
    source: sourceFlag,
    body: bodyFlag,
    bodyFile: bodyFileFlag,
    ttl: ttlFlag,
  }),
  result: planResult,
  list: PLAN_LIST,
  schema: "brain.note.create@1",
  next: ["gate review --plan {run_dir}"],
  errors: [
    "INVALID_INPUT",
    "INVALID_VALUE",
    "CONFLICT",
    "PRECONDITION_FAILED",
    "CONFLICTING_FLAGS",
    "UPSTREAM_ERROR",
    "IN_PROGRESS",
  ],
  env: REPO_VARS,
  examples: [
    {
      argv: ["--repo", "./knowledge", "--title", "Harbour history", "--tag", "history", "--body", "Founded in 2009."],
      summary: "Plan a new note.",
    },
  ],
  async run(ctx) {
    return writePlan(
      ctx,
      async () => {
        const repo = await cleanRepo(ctx);
        const input = await noteInput(ctx);
        const { title } = input;
        if (!title)
          throw new KitError(
            "MISSING_FLAG",
            "a note needs a title: give --title, or a title in --body-file's front matter",
            { hint: "add --title 'What this note is about'" },
          );
        // From the title as it may be shown: an id is never cut from a secret, which would leave a slice the mask no longer finds.
        const id = checkId(input.id ?? slugOf(ctx.redact(title)));
        if (getNote(repo.root, id))
          throw new KitError("CONFLICT", `a note with the id ${id} already exists`, {
            got: id,
            hint: `change it with \`brain note update --id ${id}\`, or give another --id`,
          });
        return {
          context: { repo: repo.root },
          items: [
            {
              action: "create-note",
              reason: `create note ${id}: ${title}`,
              params: noteParams({
                id,
                title,
                tags: input.tags ?? [],
                source: input.source ?? null,
                body: input.body ?? "",
              }),
              preconditions: [{ target: id, version: null }],
            },
          ],
        };
      },
      ctx.flags.ttl,
    );
  },
});
