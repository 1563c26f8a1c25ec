/**
 * What each note action may change: its own note, notes/<id>.md, and
 * nothing else. An item is held to it by what it carries: the id that names
 * the file it writes must be a note id and the one target it is judged and
 * guarded as, and its params only the fields the action writes.
 */
import type { Effect, PlanItem } from "agent-cli-kit/writes";
import { NOTE_ID, notePath } from "./notes.ts";

type NoteAction = "create-note" | "update-note" | "delete-note";

const FIELDS: Readonly<Record<NoteAction, readonly string[]>> = {
  "create-note": ["body", "id", "source", "tags", "title"],
  "update-note": ["body", "id", "source", "tags", "title"],
  "delete-note": ["id"],
};

const MAY: Readonly<Record<NoteAction, string>> = {
  "create-note": "only create its own note, notes/<id>.md, which must not exist yet",
  "update-note": "only rewrite its own note, notes/<id>.md",
  "delete-note": "only delete its own note, notes/<id>.md",
};

/** The note's fields, of the types the renderer writes. */
function fieldsWrong(p: Record<string, unknown>): string | null {
  if (typeof p.title !== "string" || typeof p.body !== "string") return "its title and body are not text";
  if (!Array.isArray(p.tags) || p.tags.some((t) => typeof t !== "string")) return "its tags are not a list of text";
  if (p.source !== null && typeof p.source !== "string") return "its source is neither text nor null";
  return null;
}

export function beyondNote(action: NoteAction, item: PlanItem): string[] {
  const p = item.params;
  if (typeof p.id !== "string" || !NOTE_ID.test(p.id))
    return [`its id ${JSON.stringify(p.id)?.slice(0, 80)} is not a note id, so it names no note's file`];
  const out: string[] = [];
  const targets = item.preconditions.map((c) => c.target);
  if (targets.length !== 1 || targets[0] !== p.id)
    out.push(`it writes ${notePath(p.id)} but is judged and guarded as ${JSON.stringify(targets)}`);
  const extra = Object.keys(p).filter((k) => !FIELDS[action].includes(k));
  if (extra.length) out.push(`its params carry ${extra.join(", ")}, which ${action} does not write`);
  if (action === "create-note" && item.preconditions.some((c) => c.version !== null))
    out.push("it expects its note to exist already, so it would overwrite one");
  if (action !== "create-note" && item.preconditions.some((c) => c.version === null))
    out.push(`it expects no note there, so there is nothing to ${action === "delete-note" ? "delete" : "update"}`);
  const wrong = action === "delete-note" ? null : fieldsWrong(p);
  if (wrong) out.push(wrong);
  return out;
}

export const noteEffect = (action: NoteAction): Effect => ({
  may: MAY[action],
  beyond: async (item) => beyondNote(action, item),
});
