/** The read commands' common start: the repository's note index, up to date, with the notes that cannot be read reported on stderr. */
import type { CommandContext } from "../../../src/kit/index.ts";
import { NoteIndex } from "./note-index.ts";
import { openRepo } from "./repo.ts";

export function openNotes(ctx: CommandContext<{ repo?: string }>): NoteIndex {
  const repo = openRepo(ctx.flags.repo, ctx.env, ctx.cwd);
  const index = NoteIndex.open(repo.root, { warn: (m) => ctx.log.warn(m), progress: ctx.progress }, repo.gitDir);
  for (const b of index.unreadable()) ctx.log.warn(`skipped ${b.id}: ${b.reason}`);
  return index;
}
