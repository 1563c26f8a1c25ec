/**
 * `--fuzz N`: N randomized invocations per command (fast-check: seeded, so a
 * failure replays, and shrunk, so the evidence is the smallest argv that
 * shows it). Every run must still give one valid envelope, an exit that
 * agrees with its code, no stack trace, no hang, and never INTERNAL: bad
 * input is the caller's mistake, and the tool must say which.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { inspectEnvelope } from "../base/inspect.ts";
import type { Subject } from "../base/subject.ts";
import { Findings } from "../base/report.ts";
import type { RunResult } from "../base/sandbox.ts";
import type { CommandDoc } from "../base/schemas.ts";
import { plausible, words } from "./values.ts";

// argv cannot carry NUL; everything else is fair game.
const text = fc.string({ unit: "grapheme", maxLength: 24 });
const raw = fc.string({ unit: "binary", maxLength: 16 }).map((x) => x.replace(/\0/g, ""));

function valueFor(c: CommandDoc, name: string): fc.Arbitrary<string> {
  const flag = c.flags.find((x) => x.name === name);
  const p =
    ((c.input_schema?.properties ?? {}) as Record<string, Record<string, unknown>>)[name] ??
    (flag?.enum ? { enum: flag.enum } : { type: flag?.type === "enum" ? "string" : flag?.type });
  const sensible = plausible(p as never);
  return fc.oneof(
    { arbitrary: fc.constantFrom(...((p.enum as string[] | undefined) ?? [sensible ?? "x"])), weight: 3 },
    { arbitrary: fc.integer({ min: -5, max: 100000 }).map(String), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        "",
        " ",
        "-1",
        "0",
        "1e309",
        "NaN",
        "--json",
        "true",
        "null",
        "../../etc/passwd",
        "https://example.invalid/",
        "ünïcödé",
        "名前",
        "🙂",
        "a\u202eb",
        "x\ny",
      ),
      weight: 2,
    },
    { arbitrary: text, weight: 2 },
    { arbitrary: raw, weight: 1 },
  );
}

/**
 * Each declared flag at most once (a repeated flag or a stray word is refused
 * before any value is looked at, so mostly the values are what varies), the
 * value-carrying universal flags, and now and then one piece of noise.
 */
function argvFor(c: CommandDoc): fc.Arbitrary<string[]> {
  const own = fc.record(
    Object.fromEntries(
      c.flags.map((f) => [
        f.name,
        f.type === "boolean" ? fc.constantFrom("true", "false", "maybe") : valueFor(c, f.name),
      ]),
    ),
    { requiredKeys: [] },
  );
  const universal = fc.record(
    {
      json: fc.constant(""),
      "dry-run": fc.constant(""),
      limit: fc.integer({ min: -3, max: 2000 }).map(String),
      cursor: text,
      fields: text,
    },
    { requiredKeys: [] },
  );
  const noise = fc.option(
    fc.oneof(
      fc.stringMatching(/^--[a-z][a-z-]{0,12}$/).map((x) => [x]),
      text.map((x) => [x]),
    ),
    { freq: 4 },
  );
  const toArgv = (flags: Record<string, string>) =>
    Object.entries(flags).flatMap(([k, val]) => (val === "" ? [`--${k}`] : [`--${k}=${val}`]));
  return fc
    .tuple(own, universal, noise)
    .map(([o, u, n]) => [
      ...words(c),
      ...toArgv(o as Record<string, string>),
      ...toArgv(u as Record<string, string>),
      ...(n ?? []),
      "--no-input",
    ]);
}

function paramsFor(c: CommandDoc): fc.Arbitrary<string> {
  const key = fc.oneof(fc.constantFrom(...c.flags.map((f) => f.name), "limit", "cursor", "fields", "dry-run"), text);
  return fc.oneof(
    fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }).map((d) => JSON.stringify(d)),
    text,
    fc.jsonValue({ maxDepth: 2 }).map((j) => JSON.stringify(j)),
  );
}

export async function fuzzCommand(s: Subject, c: CommandDoc, runs: number, seed: number): Promise<void> {
  const dir = s.sandbox.dir(`fuzz-${c.name.replace(/ /g, "-")}`);
  let failing: { result: RunResult; why: string } | null = null;

  const attempt = async (argv: string[]): Promise<boolean> => {
    // The exits seen so far are shared, so a fuzzed run cannot give a code a second class unnoticed.
    const scratch: Subject = { ...s, findings: new Findings() };
    const r = await s.sandbox.run({ label: `fuzz ${c.name}`, argv, cwd: dir });
    inspectEnvelope(scratch, r, c);
    const bad = scratch.findings.results().filter((x) => x.status === "fail");
    const why = bad.length
      ? bad.map((b) => `${b.id}: ${b.evidence[0]?.what}`).join("; ")
      : r.exit === 1
        ? "INTERNAL on bad input: the tool failed instead of saying what was wrong"
        : null;
    if (why) failing = { result: r, why };
    return why === null;
  };

  let n = 0;
  const property = fc.asyncProperty(
    fc.oneof(
      argvFor(c),
      paramsFor(c).map((doc) => ({ doc })),
    ),
    async (input) => {
      if (Array.isArray(input)) return attempt(input);
      const file = join(dir, `params-${n++}.json`);
      writeFileSync(file, input.doc);
      return attempt([...words(c), "--params", file, "--no-input"]);
    },
  );
  const details = await fc.check(property, {
    numRuns: runs,
    seed,
    endOnFailure: false,
    interruptAfterTimeLimit: 120_000,
  });
  s.findings.exercised("fuzz", details.numRuns);
  if (details.failed && failing) {
    const { result, why } = failing as { result: RunResult; why: string };
    s.findings.fail("fuzz", `'${c.name}' (seed ${seed}, shrunk after ${details.numShrinks} steps): ${why}`, result);
  }
}
