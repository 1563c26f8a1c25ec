/**
 * A repository of a few notes is listed from its files: reading them costs
 * less than opening an index (and loading SQLite at all), which matters where
 * a call's whole cost is its start-up. The answer is the index's: the same
 * filters, the same order, the same notes set apart as unreadable
 * (`brain-index.test.ts` compares the two).
 */
import type { NoteSummary } from "./note-index.ts";
import { noteIdsIn, notesFolder, notesFolderBytes, parseNote, readNoteFile, type Note } from "./notes.ts";

/** From this many notes on, a list is read from the index. */
export const INDEX_FROM = 32;

export interface FewNotes {
  readonly notes: Note[];
  readonly unreadable: { id: string; reason: string }[];
}

/**
 * A notes folder this large on disk may hold more than a few hundred entries
 * (each entry takes some bytes of the folder on every common file system),
 * and reading the names of ten thousand costs milliseconds: such a folder
 * goes to the index without being read. (A folder that once held many notes
 * stays large on some file systems; it is listed from the index, as right.)
 */
const FEW_FOLDER_BYTES = 8192;

/** Every note of `root`, by id, when it has fewer than INDEX_FROM; null when it has more. */
export function readFewNotes(root: string): FewNotes | null {
  if (notesFolderBytes(root) > FEW_FOLDER_BYTES) return null;
  const ids = noteIdsIn(notesFolder(root));
  if (ids.length >= INDEX_FROM) return null;
  const out: FewNotes = { notes: [], unreadable: [] };
  // By id, as SQLite orders them (ids are ASCII: code units and bytes agree).
  for (const id of ids.sort()) {
    try {
      const bytes = readNoteFile(root, id);
      if (bytes) out.notes.push(parseNote(id, bytes));
    } catch (e) {
      out.unreadable.push({ id, reason: (e as Error).message });
    }
  }
  return out;
}

/** The notes with every one of `tags` whose title or body contains `text` (case-folded as the index folds it). */
export function listFew(notes: readonly Note[], tags: readonly string[], text: string | undefined): NoteSummary[] {
  const folded = text?.toLowerCase();
  return notes
    .filter(
      (n) =>
        tags.every((t) => n.tags.includes(t)) &&
        (folded === undefined || n.title.toLowerCase().includes(folded) || n.body.toLowerCase().includes(folded)),
    )
    .map(({ body: _b, blob: _h, ...summary }) => summary);
}
