import * as z from "zod/mini";
import { defineCommand, KitError, planResult, ttlFlag, writePlan } from "../../../src/kit/index.ts";
import { idFlag, REPO_VARS, repoFlag } from "../lib/flags.ts";
import { checkId, getNote } from "../lib/notes.ts";
import { cleanRepo } from "../lib/plan-notes.ts";

export default defineCommand({
  resource: "note",
  verb: "delete",
  tier: 1,
  rw: "write",
  summary: "Plan a note's deletion: the plan records the blob it saw; the repository is untouched until `brain apply`.",
  flags: z.object({ repo: repoFlag, id: idFlag, ttl: ttlFlag }),
  result: planResult,
  schema: "brain.note.delete@1",
  errors: ["INVALID_INPUT", "INVALID_VALUE", "NOT_FOUND", "PRECONDITION_FAILED", "UPSTREAM_ERROR"],
  env: REPO_VARS,
  examples: [{ argv: ["--repo", "./knowledge", "--id", "old-draft"], summary: "Plan removing a note." }],
  async run(ctx) {
    return writePlan(
      ctx,
      async () => {
        const repo = cleanRepo(ctx);
        const id = checkId(ctx.flags.id);
        const note = getNote(repo.root, id);
        if (!note) throw new KitError("NOT_FOUND", `no note has the id ${id}`, { got: id, hint: "`brain note list` shows the ids" });
        return { context: { repo: repo.root }, items: [{ action: "delete-note", reason: `delete note ${id}: ${note.title}`, params: { id }, preconditions: [{ target: id, version: note.blob }] }] };
      },
      ctx.flags.ttl,
    );
  },
});
