import * as z from "agent-cli-kit/schema";
import { defineCommand, describe } from "agent-cli-kit";
import { PLAN_LIST, planResult, ttlFlag, writePlan } from "agent-cli-kit/writes";
import { REPO_VARS, repoFlag } from "../lib/flags.ts";
import { checkId, requireNote } from "../lib/notes.ts";
import { cleanRepo } from "../lib/plan-notes.ts";

export default defineCommand({
  resource: "note",
  verb: "delete",
  tier: 1,
  rw: "write",
  summary:
    "Plan deleting notes, one item each: the plan records the blob it saw; the repository is untouched until `brain apply`.",
  flags: z.object({
    repo: repoFlag,
    id: describe(
      z.array(z.string().check(z.minLength(1), z.maxLength(200))).check(z.minLength(1), z.maxLength(500)),
      "The note to delete (repeat for several).",
    ),
    ttl: ttlFlag,
  }),
  result: planResult,
  list: PLAN_LIST,
  schema: "brain.note.delete@1",
  next: ["gate review --plan {run_dir}"],
  errors: [
    "INVALID_INPUT",
    "INVALID_VALUE",
    "NOT_FOUND",
    "PRECONDITION_FAILED",
    "UPSTREAM_ERROR",
    "CONFLICT",
    "IN_PROGRESS",
  ],
  env: REPO_VARS,
  examples: [
    {
      argv: ["--repo", "./knowledge", "--id", "old-draft", "--id", "older-draft"],
      summary: "Plan removing two notes.",
    },
  ],
  async run(ctx) {
    return writePlan(
      ctx,
      async () => {
        const repo = await cleanRepo(ctx);
        const ids = [...new Set(ctx.flags.id.map(checkId))];
        const items = ids.map((id) => {
          const note = requireNote(repo.root, id);
          return {
            action: "delete-note",
            reason: `delete note ${id}: ${note.title}`,
            params: { id },
            preconditions: [{ target: id, version: note.blob }],
          };
        });
        return { context: { repo: repo.root }, items };
      },
      ctx.flags.ttl,
    );
  },
});
