/**
 * A suite that stays green on a busy machine: bun holds tests and hooks to
 * 5 s unless its command line says otherwise (it reads no timeout from
 * bunfig.toml), so `npm test` passes one, and a hook that starts servers,
 * compiles or removes folders passes its own (SLOW_HOOK) for a file run alone.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { sourcesUnder } from "../../scripts/sources.ts";

const root = join(import.meta.dir, "..", "..");

/** Where the call whose argument list starts at `i` ends, and how many arguments it has (strings, templates and comments skipped). */
function argumentsAt(s: string, i: number): number {
  let depth = 0;
  let args = 1;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === "/" && s[i + 1] === "/") i = s.indexOf("\n", i);
    else if (c === "/" && s[i + 1] === "*") i = s.indexOf("*/", i) + 1;
    else if (c === '"' || c === "'" || c === "`") i = endOfString(s, i);
    else if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) {
      if (depth === 0) return args;
      depth--;
    } else if (c === "," && depth === 0 && s.slice(i + 1).trimStart()[0] !== ")") args++;
  }
  return args;
}

function endOfString(s: string, i: number): number {
  const quote = s[i]!;
  for (i++; i < s.length && s[i] !== quote; i++) {
    if (s[i] === "\\") i++;
    else if (quote === "`" && s[i] === "$" && s[i + 1] === "{") {
      let depth = 0;
      for (i += 2; i < s.length && !(s[i] === "}" && depth === 0); i++) {
        if (s[i] === "{") depth++;
        else if (s[i] === "}") depth--;
        else if (s[i] === '"' || s[i] === "'" || s[i] === "`") i = endOfString(s, i);
      }
    }
  }
  return i;
}

test("npm test gives every test and hook two minutes: bun reads no timeout from bunfig.toml, only from its command line", () => {
  const script = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.test as string;
  expect(script).toMatch(/\bbun test\b[^&]*--timeout 120000\b/);
  expect(readFileSync(join(root, "bunfig.toml"), "utf8")).not.toMatch(/^timeout\s*=/m);
});

test("every hook in the test suite passes its own timeout, not bun's 5 s default", () => {
  const bare: string[] = [];
  for (const file of sourcesUnder(join(root, "test"))) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\b(after|before)(All|Each)\(/g))
      if (argumentsAt(text, m.index + m[0].length) < 2)
        bare.push(`${relative(root, file)}:${text.slice(0, m.index).split("\n").length}`);
  }
  expect(bare).toEqual([]);
});

test("no test or hook sets itself a timeout shorter than the suite's two minutes", () => {
  const short: string[] = [];
  for (const file of sourcesUnder(join(root, "test")))
    for (const [i, line] of readFileSync(file, "utf8").split("\n").entries()) {
      const m = /^\s*\}, ([0-9_]+)\);$/.exec(line);
      if (m && Number(m[1]!.replaceAll("_", "")) < 120_000) short.push(`${relative(root, file)}:${i + 1}`);
    }
  expect(short).toEqual([]);
});
