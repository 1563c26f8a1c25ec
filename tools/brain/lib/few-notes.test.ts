/**
 * A repository of a few notes is listed from its files, in-process: the same
 * notes, in the same order, with the same ones set apart, as the index lists.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { notesRepo } from "../../../test/helpers/note-files.ts";
import { INDEX_FROM, listFew, readFewNotes } from "./few-notes.ts";
import { EVERY_FILE } from "./index-plan.ts";
import { NoteIndex } from "./note-index.ts";

test("a repository of a few notes is listed from its files exactly as the index lists it", () => {
  const { repo, write } = notesRepo(INDEX_FROM - 8, 3);
  write("n-0002", "ÉTÉ à la Straße", "Über den Hafen, a Zeppelin");
  write("a-b", "Hyphen first", "sorts before a");
  write("a", "Just a", "sorts after a-b as a file name, before it as an id");
  writeFileSync(join(repo, "notes", "n-0003.md"), "---\ntitle: [unclosed\n---\n\nbad yaml\n");
  writeFileSync(join(repo, "notes", "n-0004.md"), new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]));
  const few = readFewNotes(repo)!;
  const index = NoteIndex.open(repo, { warn: () => {} }, null, Date.now);
  index.refresh(null, () => EVERY_FILE);
  for (const [tags, text] of [
    [[], undefined],
    [["oak"], undefined],
    [[], "ZEPPELIN"],
    [[], "été"],
    [[], "über"],
    [["oak", "ash"], "a"],
    [[], "no such text"],
  ] as [string[], string | undefined][])
    expect({ tags, text, listed: listFew(few.notes, tags, text) }).toEqual({
      tags,
      text,
      listed: [...index.list(tags, text, { offset: 0, limit: 1000 }).items],
    });
  expect(few.unreadable).toEqual(index.unreadable());
  expect(few.unreadable.map((u) => u.id)).toEqual(["n-0003", "n-0004"]);
  index.close();
});

test("from INDEX_FROM notes on, a list is the index's", () => {
  expect(readFewNotes(notesRepo(INDEX_FROM - 1).repo)?.notes).toHaveLength(INDEX_FROM - 1);
  expect(readFewNotes(notesRepo(INDEX_FROM).repo)).toBeNull();
});
