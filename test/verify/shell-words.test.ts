/** verify's own POSIX word splitting, and the kit's quoting read back by it: one line, exactly the argv. */
import { describe, expect, test } from "bun:test";
import { shellLine } from "../../src/kit/introspection/shell.ts";
import { shellWords } from "../../verify/base/shell-words.ts";

describe("shellWords splits a line as sh does", () => {
  const cases: [string, string[]][] = [
    ["brain search --query sharpening spades", ["brain", "search", "--query", "sharpening", "spades"]],
    ["brain search --query 'sharpening spades'", ["brain", "search", "--query", "sharpening spades"]],
    [`x --title "Harbour history" --body 'it'\\''s'`, ["x", "--title", "Harbour history", "--body", "it's"]],
    [`x a\\ b "c\\"d" ''`, ["x", "a b", 'c"d', ""]],
  ];
  for (const [line, words] of cases)
    test(`${line} → ${JSON.stringify(words)}`, () => {
      expect(shellWords(line)).toEqual({ words });
    });

  test("reports what the shell would do more than split: a glob, a variable, a pipe, an open quote", () => {
    for (const line of [
      "x\ny",
      "x --url=https://e.com/a?b",
      "x --path $HOME",
      "x | y",
      "x 'open",
      'x "a $b"',
      "x ~/notes",
    ])
      expect(shellWords(line)).toHaveProperty("error");
  });
});

test("every line the kit prints splits back into exactly its words", () => {
  const words = [
    "brain",
    "note",
    "create",
    "--title",
    "Harbour history",
    "--body",
    "It's $5 & `free`; #1 ~ok",
    "",
    "--tag",
    "a=b",
    "--x",
    "*",
    "naïve",
    "tab\there",
    "new\nline",
  ];
  expect(shellWords(shellLine(words))).toEqual({ words });
});
