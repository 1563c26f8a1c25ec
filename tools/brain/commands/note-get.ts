import * as z from "agent-cli-kit/schema";
import { defineCommand, describe } from "agent-cli-kit";
import { idFlag, REPO_VARS, repoFlag } from "../lib/flags.ts";
import { checkId, requireNote } from "../lib/notes.ts";
import { openRepo } from "../lib/repo.ts";
import { noteSummary } from "./shared.ts";

export default defineCommand({
  resource: "note",
  verb: "get",
  tier: 1,
  rw: "read",
  summary: "Get one note: front matter, body, and the blob hash an update is planned against.",
  flags: z.object({ repo: repoFlag, id: idFlag }),
  result: z.extend(noteSummary, {
    body: z.string(),
    blob: describe(z.string(), "git's blob hash of the note file."),
  }),
  schema: "brain.note.get@1",
  errors: ["NOT_FOUND", "INVALID_INPUT", "INVALID_VALUE", "CONFLICT"],
  env: REPO_VARS,
  examples: [{ argv: ["--repo", "./knowledge", "--id", "harbour-history"], summary: "One note in full." }],
  async run(ctx) {
    const repo = openRepo(ctx.flags.repo, ctx.env, ctx.cwd);
    const note = requireNote(repo.root, checkId(ctx.flags.id));
    return note;
  },
});
