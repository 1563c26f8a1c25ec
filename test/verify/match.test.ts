import { describe, expect, test } from "bun:test";
import { jsonMismatch, lineMatches, textMismatch } from "../../verify/golden/match.ts";

describe("golden matching", () => {
  test("[..] matches any run of characters within a line", () => {
    expect(lineMatches("took [..] ms", "took 12 ms")).toBe(true);
    expect(lineMatches("took [..] ms", "took 12 s")).toBe(false);
    expect(lineMatches("a.b", "axb")).toBe(false);
  });

  test("a ... line matches any number of lines, including none", () => {
    expect(textMismatch("head\n...\ntail", "head\nx\ny\ntail")).toBeNull();
    expect(textMismatch("head\n...\ntail", "head\ntail")).toBeNull();
    expect(textMismatch("head\ntail", "head\nmid\ntail")).not.toBeNull();
    expect(textMismatch("a\nb", "a\nc")).toBe('line 2: expected "b", got "c"');
  });

  test('the JSON value "..." matches any value, any run of array items, and extra keys', () => {
    expect(jsonMismatch({ a: "...", b: 1 }, { a: { deep: [1] }, b: 1 })).toBeNull();
    expect(jsonMismatch([1, "...", 4], [1, 2, 3, 4])).toBeNull();
    expect(jsonMismatch([1, "..."], [1])).toBeNull();
    expect(jsonMismatch({ a: 1, "...": "..." }, { a: 1, b: 2 })).toBeNull();
    expect(jsonMismatch({ a: 1 }, { a: 1, b: 2 })).not.toBeNull();
  });

  test("a difference names its path", () => {
    expect(jsonMismatch({ meta: { n: 1 } }, { meta: { n: 2 } })).toBe("$.meta.n: expected 1, got 2");
    expect(jsonMismatch([1, 2], [1])).toContain("expected 2 items");
    expect(jsonMismatch({ s: "id-[..]" }, { s: "id-42" })).toBeNull();
  });
});
