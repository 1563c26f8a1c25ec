import { describe, expect, test } from "bun:test";
import { parseFlags, splitCommandWords, type ArgvFlag } from "../../src/kit/cli/argv.ts";
import { KitError } from "../../src/kit/output/errors.ts";

const known: ArgvFlag[] = [
  { name: "url", kind: "value" },
  { name: "json", kind: "boolean" },
  { name: "tag", kind: "repeatable" },
  { name: "no-input", kind: "boolean" },
];

const rejects = (tokens: string[]): KitError => {
  try {
    parseFlags(tokens, known, "demo thing");
  } catch (e) {
    if (e instanceof KitError) return e;
    throw e;
  }
  throw new Error(`accepted ${tokens.join(" ")}`);
};

describe("argv", () => {
  test("leading bare words name the command; the first flag ends them", () => {
    expect(splitCommandWords(["page", "list", "--limit", "5"], 2)).toEqual({
      words: ["page", "list"],
      rest: ["--limit", "5"],
    });
    expect(splitCommandWords(["audit", "extra", "more"], 2)).toEqual({ words: ["audit", "extra"], rest: ["more"] });
    expect(splitCommandWords(["--describe"], 2)).toEqual({ words: [], rest: ["--describe"] });
  });

  test("reads values inline and separate, switches, and repeatable flags", () => {
    expect(parseFlags(["--url=http://a", "--json", "--tag", "x", "--tag=y", "--no-input"], known, "demo")).toEqual({
      url: "http://a",
      json: true,
      tag: ["x", "y"],
      "no-input": true,
    });
    expect(parseFlags(["--json=false"], known, "demo")).toEqual({ json: false });
  });

  test("an unknown flag lists the valid ones and suggests the nearest", () => {
    const e = rejects(["--ulr", "x"]);
    expect(e.code).toBe("UNKNOWN_FLAG");
    expect(e.allowed).toEqual(["--url", "--json", "--tag", "--no-input"]);
    expect(e.hint).toBe("did you mean --url?");
  });

  test("a camelCase spelling is not a second name for a flag", () => {
    expect(rejects(["--noInput"]).code).toBe("UNKNOWN_FLAG");
  });

  test("a value flag followed by another flag is a missing value, not a value of '--json'", () => {
    const e = rejects(["--url", "--json"]);
    expect(e.code).toBe("INVALID_VALUE");
    expect(e.message).toBe("--url needs a value");
  });

  test("a value flag at the end is a missing value", () => {
    expect(rejects(["--url"]).code).toBe("INVALID_VALUE");
  });

  test("a single-valued flag given twice is a conflict, never last-wins", () => {
    const e = rejects(["--url", "a", "--url", "b"]);
    expect(e.code).toBe("CONFLICTING_FLAGS");
    expect(e.got).toEqual(["a", "b"]);
  });

  test("a stray positional argument is a usage error", () => {
    expect(rejects(["--json", "extra"]).code).toBe("USAGE");
    expect(rejects(["--", "x"]).code).toBe("USAGE");
  });

  test("a switch with a non-boolean value is rejected with the allowed spellings", () => {
    const e = rejects(["--json=maybe"]);
    expect(e.code).toBe("INVALID_VALUE");
    expect(e.allowed).toEqual(["true", "false"]);
  });

  test("a value may start with a single dash", () => {
    expect(parseFlags(["--url", "-5"], known, "demo")).toEqual({ url: "-5" });
  });
});
