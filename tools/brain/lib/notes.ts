/** Notes: Markdown with YAML front matter, one file per note under notes/<id>.md. */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { confinedPath } from "agent-cli-kit";
import { KitError, nearest } from "agent-cli-kit";
import { blobHash } from "./repo.ts";

export const NOTES_DIR = "notes";
export const MAX_NOTE_BYTES = 256 * 1024;
/** Lowercase words joined by hyphens: never a path, never hidden, never empty. */
export const NOTE_ID = /^[a-z0-9][a-z0-9-]{0,79}$/;

export interface Note {
  id: string;
  title: string;
  tags: string[];
  created: string | null;
  updated: string | null;
  source: string | null;
  body: string;
  /** The blob hash of the file as read: what an update's precondition holds. */
  blob: string;
  bytes: number;
}

export const notePath = (id: string): string => `${NOTES_DIR}/${id}.md`;

/** The notes folder of the repository at `root`. */
export const notesFolder = (root: string): string => `${root}/${NOTES_DIR}`;

/** The notes folder's size on disk (0 without one): a hint, read with no listing, of how many notes it holds. */
export const notesFolderBytes = (root: string): number =>
  lstatSync(notesFolder(root), { throwIfNoEntry: false })?.size ?? 0;

export function checkId(id: string): string {
  if (!NOTE_ID.test(id))
    throw new KitError(
      "INVALID_VALUE",
      `'${id}' is not a note id: lowercase letters, digits and hyphens, starting with a letter or digit`,
      { got: id, hint: "e.g. --id harbour-history" },
    );
  return id;
}

export function slugOf(title: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return slug || "note";
}

/** Splits front matter from body; front matter that is not valid YAML (or not a mapping) is an input error. */
export function splitFrontMatter(text: string, where: string): { meta: Record<string, unknown>; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return { meta: {}, body: text };
  let meta: unknown;
  try {
    // The runtime's own YAML parser: reading a note loads no YAML library.
    meta = Bun.YAML.parse(m[1]!);
  } catch {
    throw new KitError("INVALID_INPUT", `the front matter of ${where} is not valid YAML: ${yamlProblem(m[1]!)}`, {
      hint: "fix the YAML between the --- lines",
    });
  }
  if (meta !== null && (typeof meta !== "object" || Array.isArray(meta)))
    throw new KitError("INVALID_INPUT", `the front matter of ${where} is not a YAML mapping`, {
      hint: "use `key: value` lines between the --- lines",
    });
  return { meta: (meta ?? {}) as Record<string, unknown>, body: text.slice(m[0].length) };
}

/** Where and why YAML is invalid, in the words of the `yaml` library (loaded only for a broken note): the runtime's parser says less. */
function yamlProblem(text: string): string {
  const { parse } = require("yaml") as typeof import("yaml");
  try {
    parse(text);
    return "it is not a YAML mapping this tool can read";
  } catch (e) {
    return (e as Error).message.split("\n")[0]!;
  }
}

const str = (x: unknown): string | null =>
  typeof x === "string" ? x : x instanceof Date ? x.toISOString() : x === undefined || x === null ? null : String(x);

const utf8 = new TextDecoder("utf-8", { fatal: true });

export function parseNote(id: string, bytes: Uint8Array): Note {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    // Decoding loosely would turn every invalid byte into U+FFFD, and an update would write that back.
    throw new KitError("INVALID_INPUT", `${notePath(id)} is not valid UTF-8`, {
      hint: "convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8), commit it, then retry",
    });
  }
  const { meta, body } = splitFrontMatter(text, notePath(id));
  const tags = Array.isArray(meta.tags)
    ? meta.tags.map(String)
    : typeof meta.tags === "string"
      ? meta.tags
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean)
      : [];
  // renderNote puts one blank line after the front matter; it is layout, not body.
  return {
    id,
    title: str(meta.title) ?? id,
    tags,
    created: str(meta.created),
    updated: str(meta.updated),
    source: str(meta.source),
    body: body.replace(/^\r?\n/, ""),
    blob: blobHash(bytes),
    bytes: bytes.length,
  };
}

/**
 * A note's bytes, or null when there is none. A note is a regular file in the
 * repository's notes folder: a symbolic link (to /etc/passwd, say), a folder
 * or a device is refused, never read, and so is a notes folder that leads
 * out of the repository.
 */
export function readNoteFile(root: string, id: string): Uint8Array | null {
  const path = `${root}/${notePath(id)}`;
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return null;
  if (!st.isFile())
    throw new KitError(
      "INVALID_INPUT",
      `${notePath(id)} is ${st.isSymbolicLink() ? "a symbolic link" : "not a regular file"}; a note is a regular file in the repository`,
      { got: notePath(id), hint: "replace it with the note's own file, or remove it" },
    );
  confinedPath(root, notePath(id), "the repository");
  return readFileSync(path);
}

export function getNote(root: string, id: string): Note | null {
  const bytes = readNoteFile(root, checkId(id));
  return bytes ? parseNote(id, bytes) : null;
}

/** The note, or NOT_FOUND with the nearest id as a hint. */
export function requireNote(root: string, id: string): Note {
  const note = getNote(root, id);
  if (note) return note;
  const dir = notesFolder(root);
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (st && !st.isDirectory())
    throw new KitError(
      "INVALID_INPUT",
      `${NOTES_DIR}/ in ${root} is ${st.isSymbolicLink() ? "a symbolic link" : "not a folder"}; notes live in a folder of the repository itself`,
      { hint: `make ${NOTES_DIR}/ a real folder` },
    );
  // The hint needs the ids only: no note is read for it.
  const guess = nearest(id, noteIdsIn(dir).sort());
  throw new KitError("NOT_FOUND", `no note has the id ${id}`, {
    got: id,
    hint: guess ? `did you mean ${guess}?` : "`brain note list` shows the ids",
  });
}

/** The ids of the note files in the folder `dir` (none when it is not a real folder), in no order. */
export function noteIdsIn(dir: string): string[] {
  if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".md"))
    .map((name) => name.slice(0, -3))
    .filter((id) => NOTE_ID.test(id));
}
