/**
 * Reading notes, in-process, from real files in a real git repository: the
 * front matter, the body, the blob hash git itself gives the file, and
 * every way a file can fail to be a note.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkId, noteIdsIn, notesFolder, parseNote, readNoteFile, requireNote, slugOf } from "./notes.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** A git repository with a notes folder holding `notes` (by file name). */
function repoWith(notes: Record<string, string | Uint8Array> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "brain-notes-"));
  mkdirSync(join(root, "notes"));
  for (const [name, content] of Object.entries(notes)) writeFileSync(join(root, "notes", name), content);
  expect(Bun.spawnSync(["git", "init", "-q", root]).exitCode).toBe(0);
  return root;
}

describe("parseNote", () => {
  test("the front matter's title, tags, dates and source; the body after the one blank line that follows it", () => {
    const note = parseNote(
      "winter-care",
      bytes(
        "---\ntitle: Winter care\ntags: [oil, ash]\ncreated: 2024-01-05\nupdated: '2024-02-01'\nsource: 42\n---\n\nOil the blades.\n\nHang them up.\n",
      ),
    );
    expect(note).toMatchObject({
      id: "winter-care",
      title: "Winter care",
      tags: ["oil", "ash"],
      created: expect.stringMatching(/^2024-01-05/),
      updated: "2024-02-01",
      source: "42",
      body: "Oil the blades.\n\nHang them up.\n",
    });
  });

  test("tags as one comma-separated string; CRLF front matter; a note without front matter is titled by its id", () => {
    expect(parseNote("a", bytes("---\r\ntags: oil, ash ,, rust\r\n---\r\nbody")).tags).toEqual(["oil", "ash", "rust"]);
    expect(parseNote("b", bytes("---\r\ntitle: Crlf\r\n---\r\n\r\nbody\r\n"))).toMatchObject({
      title: "Crlf",
      body: "body\r\n",
    });
    expect(parseNote("plain-note", bytes("# Just text\n"))).toMatchObject({
      title: "plain-note",
      tags: [],
      created: null,
      body: "# Just text\n",
    });
    expect(parseNote("empty-meta", bytes("---\n\n---\nbody")).title).toBe("empty-meta");
  });

  test("its blob hash is the object id git gives the file, and its size is the file's", () => {
    const text = "---\ntitle: Été à la Straße\n---\n\nÜber den Hafen.\n";
    const root = repoWith({ "ete.md": text });
    const git = Bun.spawnSync(["git", "-C", root, "hash-object", "notes/ete.md"]).stdout.toString().trim();
    const note = parseNote("ete", readNoteFile(root, "ete")!);
    expect([note.blob, note.bytes, note.title]).toEqual([`git:${git}`, Buffer.byteLength(text), "Été à la Straße"]);
  });

  test("front matter that is not YAML is INVALID_INPUT in the yaml library's words; one that is not a mapping too", () => {
    expect(() => parseNote("bad", bytes("---\ntitle: [unclosed\n---\nbody"))).toThrow(
      expect.objectContaining({
        code: "INVALID_INPUT",
        message: expect.stringMatching(/^the front matter of notes\/bad\.md is not valid YAML: .+/),
        hint: "fix the YAML between the --- lines",
      }),
    );
    expect(() => parseNote("list", bytes("---\n- a\n- b\n---\nbody"))).toThrow(
      expect.objectContaining({
        code: "INVALID_INPUT",
        message: "the front matter of notes/list.md is not a YAML mapping",
      }),
    );
  });

  test("bytes that are not UTF-8 are INVALID_INPUT, never read loosely", () => {
    expect(() => parseNote("latin", new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xe9, 0x0a]))).toThrow(
      expect.objectContaining({ code: "INVALID_INPUT", message: "notes/latin.md is not valid UTF-8" }),
    );
  });
});

describe("note files", () => {
  test("a note is a regular file in the notes folder: missing is null, a link or a folder is refused", () => {
    const root = repoWith({ "real.md": "real" });
    symlinkSync("/etc/hostname", join(root, "notes", "link.md"));
    mkdirSync(join(root, "notes", "folder.md"));
    expect([readNoteFile(root, "missing"), Buffer.from(readNoteFile(root, "real")!).toString()]).toEqual([
      null,
      "real",
    ]);
    expect(() => readNoteFile(root, "link")).toThrow(
      expect.objectContaining({ code: "INVALID_INPUT", message: expect.stringContaining("is a symbolic link") }),
    );
    expect(() => readNoteFile(root, "folder")).toThrow(
      expect.objectContaining({ code: "INVALID_INPUT", message: expect.stringContaining("not a regular file") }),
    );
  });

  test("a notes folder that is a link out of the repository: its notes are refused", () => {
    const root = mkdtempSync(join(tmpdir(), "brain-notes-"));
    const outside = mkdtempSync(join(tmpdir(), "brain-outside-"));
    writeFileSync(join(outside, "secret.md"), "secret");
    symlinkSync(outside, notesFolder(root));
    expect(() => readNoteFile(root, "secret")).toThrow(expect.objectContaining({ code: "PRECONDITION_FAILED" }));
  });

  test("the ids of a folder's notes: .md files with a valid id only; none for what is not a folder", () => {
    const root = repoWith({
      "a-b.md": "",
      "n-1.md": "",
      "README.txt": "",
      "Bad Name.md": "",
      ".hidden.md": "",
      "-x.md": "",
    });
    expect(noteIdsIn(notesFolder(root)).sort()).toEqual(["a-b", "n-1"]);
    expect(noteIdsIn(join(root, "nowhere"))).toEqual([]);
  });

  test("a missing note is NOT_FOUND naming the nearest id, or saying where the ids are listed", () => {
    const root = repoWith({ "harbour-history.md": "", "winter-care.md": "" });
    expect(() => requireNote(root, "harbour-histry")).toThrow(
      expect.objectContaining({ code: "NOT_FOUND", got: "harbour-histry", hint: "did you mean harbour-history?" }),
    );
    expect(() => requireNote(root, "zeppelin-hangar-keys")).toThrow(
      expect.objectContaining({ code: "NOT_FOUND", hint: "`brain note list` shows the ids" }),
    );
  });
});

describe("ids and slugs", () => {
  test("an id is lowercase letters, digits and hyphens, at most 80, not starting with a hyphen", () => {
    for (const ok of ["a", "harbour-history", "2024-notes", "x".repeat(80)]) expect(checkId(ok)).toBe(ok);
    for (const bad of ["", "-a", "A", "a_b", "../etc", "a/b", ".hidden", "x".repeat(81)])
      expect(() => checkId(bad)).toThrow(expect.objectContaining({ code: "INVALID_VALUE", got: bad }));
  });

  test("a slug: accents dropped, anything else a hyphen, at most 60 characters and no hyphen at either end; never empty", () => {
    expect(slugOf("  Été à la Plage!  ")).toBe("ete-a-la-plage");
    expect(slugOf(`${"word ".repeat(20)}end`)).toBe("word-word-word-word-word-word-word-word-word-word-word-word");
    expect([slugOf("!!!"), slugOf("")]).toEqual(["note", "note"]);
    expect(checkId(slugOf("Any title at all: 100% Über"))).toBe("any-title-at-all-100-uber");
  });
});
