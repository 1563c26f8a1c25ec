/** TOON is only worth offering if it carries exactly what JSON carries: real results and hostile strings round-trip. */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { decode, encode } from "@toon-format/toon";
import fc from "fast-check";

const CORPUS = join(import.meta.dir, "..", "fixtures", "toon");
const HOSTILE = [
  "",
  " ",
  "  padded  ",
  'say "hi"',
  "a,b",
  "key: value",
  "- item",
  "[1]",
  "{x}",
  "#hash",
  "line\nbreak",
  "tab\there",
  "cr\rlf",
  "back\\slash",
  "1e3",
  "007",
  "-0",
  "true",
  "null",
  "NaN",
  "é ünïcödé 名前 🙂",
  "\u202e",
  "\u0000\u0001",
  "a|b",
  "x:y,z",
];

describe("TOON round trip", () => {
  for (const file of readdirSync(CORPUS).filter((f) => f.endsWith(".json")))
    test(`the fleet's ${file.replace(/\.json$/, "")} decodes back to the same value`, () => {
      const value = JSON.parse(readFileSync(join(CORPUS, file), "utf8"));
      expect(decode(encode(value))).toEqual(value);
    });

  test("hostile strings as keys, values and list items decode back to themselves", () => {
    const value = {
      values: Object.fromEntries(HOSTILE.map((h, i) => [`k${i}`, h])),
      items: HOSTILE,
      rows: HOSTILE.map((h, i) => ({ id: i, text: h })),
      keys: Object.fromEntries(HOSTILE.filter(Boolean).map((h) => [h, h])),
    };
    expect(decode(encode(value))).toEqual(value);
  });

  test("any JSON value survives (fast-check, 2,000 cases)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
        const value = JSON.parse(JSON.stringify({ v })); // JSON's own normal form: -0 is 0
        expect(decode(encode(value))).toEqual(value);
      }),
      { numRuns: 2000, seed: 42 },
    );
  });
});
