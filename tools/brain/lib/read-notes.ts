/**
 * The read commands' common start: the repository's note index, up to date,
 * with the notes that cannot be read reported on stderr. (A list of a few
 * notes reads their files instead: few-notes.ts.)
 *
 * A small repository is checked file by file (a few microseconds a note, no
 * process). From STATUS_FROM notes on, git says which tracked notes changed:
 * one `git status` (and a `git diff-tree` when HEAD moved since the index was
 * written); new untracked files are found from the folder (index-plan.ts). It runs
 * while this process answers the query from the index as it stands; when git
 * then shows nothing new, that answer stands, and otherwise the index is
 * brought up to date and the query asked again.
 */
import { type CommandContext, KitError } from "agent-cli-kit";
import { type Change, EVERY_FILE } from "./index-plan.ts";
import type { NoteIndex } from "./note-index.ts";
import { notesFolderBytes } from "./notes.ts";
import type { Repo } from "./repo.ts";
import { NO_COMMIT, notesAt, notesBetween, startStatus, statusNow, type WorkTreeView } from "./work-tree.ts";

/** Below this many notes, checking every file costs less than starting git (measured: `npm run bench -- brain`). */
export const STATUS_FROM = 1_000;

/**
 * A notes folder this large on disk may well hold STATUS_FROM notes (a folder
 * entry takes 20 to 40 bytes on common file systems): git is started before
 * the index is even opened, so that it runs while SQLite loads. A folder of
 * fewer notes lets that git finish unread.
 */
const EARLY_STATUS_BYTES = 24_576;

/** `repo`'s note index, up to date; `ask` is the query the command will ask, asked early while git runs. */
export async function openNotes(
  ctx: CommandContext<unknown>,
  repo: Repo,
  ask: (index: NoteIndex) => unknown,
): Promise<NoteIndex> {
  const early = notesFolderBytes(repo.root) >= EARLY_STATUS_BYTES ? startStatus(repo) : null;
  // Loaded here, not with the command: a small repository's list never opens the index (few-notes.ts).
  const [{ NoteIndex }, { BUSY_TIMEOUT_MS, isBusy }] = await Promise.all([
    import("./note-index.ts"),
    import("./index-file.ts"),
  ]);
  const index = NoteIndex.open(repo.root, { warn: (m) => ctx.log.warn(m), progress: ctx.progress }, repo.gitDir, () =>
    ctx.now(),
  );
  try {
    try {
      await bringUpToDate(index, repo, ask, early);
    } catch (e) {
      if (isBusy(e))
        throw new KitError(
          "IN_PROGRESS",
          `another brain call has held the note index of ${repo.root} for ${BUSY_TIMEOUT_MS / 60_000} minutes`,
          {
            hint: "retry when it has finished; a first index of a very large repository takes a while",
          },
        );
      // Damage deeper than the file's header shows up here, on first use.
      if (!index.rebuild((e as Error).message)) throw e;
      index.refresh(EVERY_FILE, () => EVERY_FILE);
    }
    for (const b of index.unreadable()) ctx.log.warn(`skipped ${b.id}: ${b.reason}`);
    return index;
  } catch (e) {
    index.close();
    throw e;
  }
}

async function bringUpToDate(
  index: NoteIndex,
  repo: Repo,
  ask: (index: NoteIndex) => unknown,
  early: Promise<WorkTreeView | null> | null,
): Promise<void> {
  if (index.size() < STATUS_FROM) {
    index.refresh(EVERY_FILE, () => EVERY_FILE);
    return;
  }
  const status = early ?? startStatus(repo);
  ask(index); // remembered by the index, and kept if git shows nothing new
  const seen = await status;
  // With HEAD where the index left it, what git lists is all that may have changed; otherwise there is work to do.
  const unmoved =
    seen?.head && seen.head === index.head() ? { head: seen.head, candidates: seen.dirty, dirty: seen.dirty } : null;
  index.refresh(unmoved, () => changeOf(index, repo, statusNow(repo)));
}

/** What may have changed since the index was written, from git's view of the work tree, and HEAD's notes if HEAD moved. */
function changeOf(index: NoteIndex, repo: Repo, view: WorkTreeView | null): Change {
  if (!view?.head) return EVERY_FILE;
  const was = index.head();
  if (was === view.head) return { head: view.head, candidates: view.dirty, dirty: view.dirty };
  // A branch with no commit yet: no note is committed, every file is checked once, and all stay pending.
  if (view.head === NO_COMMIT)
    return { head: NO_COMMIT, candidates: "all", dirty: view.dirty, committed: { reset: new Set() } };
  const between = was && was !== NO_COMMIT ? notesBetween(repo, was, view.head) : null;
  if (between) {
    for (const id of view.dirty) between.changed.add(id);
    return { head: view.head, candidates: between.changed, dirty: view.dirty, committed: between };
  }
  const all = notesAt(repo, view.head);
  return all ? { head: view.head, candidates: "all", dirty: view.dirty, committed: { reset: all } } : EVERY_FILE;
}
