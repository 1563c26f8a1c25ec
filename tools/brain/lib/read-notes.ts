/** The read commands' common start: the repository's notes, with those that cannot be read set apart and reported. */
import type { CommandContext } from "../../../src/kit/index.ts";
import { allNotes, type Note } from "./notes.ts";
import { openRepo } from "./repo.ts";

export function readNotes(ctx: CommandContext<{ repo?: string; tag?: string[] }>): { notes: Note[]; unreadable: { id: string; reason: string }[] } {
  const repo = openRepo(ctx.flags.repo, ctx.env, ctx.cwd);
  const { notes, unreadable } = allNotes(repo.root);
  for (const b of unreadable) ctx.log.warn(`skipped ${b.id}: ${b.reason}`);
  const tags = ctx.flags.tag ?? [];
  return { notes: notes.filter((n) => tags.every((t) => n.tags.includes(t))), unreadable };
}
