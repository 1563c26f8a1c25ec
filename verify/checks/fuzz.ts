/**
 * `--fuzz N`: N randomized invocations per command (fast-check: seeded, so a
 * failure replays, and shrunk, so the evidence is the smallest argv that
 * shows it). Every run must still give one valid envelope, an exit that
 * agrees with its code, no stack trace, no hang, and never INTERNAL: bad
 * input is the caller's mistake, and the tool must say which.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
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

type Input = string[] | { doc: string };

/** The property fast-check checks: one input, run and judged by `attempt`. */
const propertyOf = (c: CommandDoc, attempt: (input: Input) => Promise<boolean>) =>
  fc.asyncProperty(
    fc.oneof(
      argvFor(c),
      paramsFor(c).map((doc) => ({ doc })),
    ),
    attempt,
  );

/**
 * The inputs fast-check tries with this seed, in its order: its own run with
 * a property that only records them, so the parallel runs are exactly the
 * sequential ones.
 */
async function inputsOf(c: CommandDoc, runs: number, seed: number): Promise<Input[]> {
  const inputs: Input[] = [];
  await fc.check(
    propertyOf(c, async (input) => {
      inputs.push(structuredClone(input));
      return true;
    }),
    { numRuns: runs, seed },
  );
  return inputs;
}

/** One fuzzed invocation, in a folder of its own: no run sees what another left. */
function runInput(s: Subject, c: CommandDoc, dir: string, input: Input, n: number, background: boolean) {
  const cwd = mkdtempSync(join(dir, "run-"));
  let argv = input as string[];
  if (!Array.isArray(input)) {
    const file = join(cwd, `params-${n}.json`);
    writeFileSync(file, input.doc);
    argv = [...words(c), "--params", file, "--no-input"];
  }
  return s.sandbox.run({ label: `fuzz ${c.name}`, argv, cwd, background });
}

/** Why a fuzzed run breaks the contract, or null. The exits seen so far are shared: a code cannot get a second class unnoticed. */
function judge(s: Subject, c: CommandDoc, r: RunResult): string | null {
  const scratch: Subject = { ...s, findings: new Findings() };
  inspectEnvelope(scratch, r, c);
  const bad = scratch.findings.results().filter((x) => x.status === "fail");
  if (bad.length) return bad.map((b) => `${b.id}: ${b.evidence[0]?.what}`).join("; ");
  return r.exit === 1 ? "INTERNAL on bad input: the tool failed instead of saying what was wrong" : null;
}

/** fast-check's own run, one input after another, to shrink a failure to the smallest argv that shows it. */
async function shrink(s: Subject, c: CommandDoc, dir: string, runs: number, seed: number): Promise<void> {
  let failing: { result: RunResult; why: string } | null = null;
  let n = 0;
  const details = await fc.check(
    propertyOf(c, async (input) => {
      const r = await runInput(s, c, dir, input, n++, false);
      const why = judge(s, c, r);
      if (why) failing = { result: r, why };
      return why === null;
    }),
    { numRuns: runs, seed, endOnFailure: false, interruptAfterTimeLimit: 120_000 },
  );
  if (!details.failed || !failing) return;
  const { result, why } = failing as { result: RunResult; why: string };
  s.findings.fail("fuzz", `'${c.name}' (seed ${seed}, shrunk after ${details.numShrinks} steps): ${why}`, result);
}

export interface Fuzzed {
  readonly command: CommandDoc;
  readonly dir: string;
  readonly results: Promise<RunResult[]>;
}

/** A command's fuzzed runs, all started at once (in the background: probes first); judged later by judgeFuzz. */
export function startFuzz(s: Subject, c: CommandDoc, runs: number, seed: number): Fuzzed {
  const dir = s.sandbox.dir(`fuzz-${c.name.replace(/ /g, "-")}`);
  const results = inputsOf(c, runs, seed).then((inputs) => {
    let n = 0;
    return Promise.all(inputs.map((input) => runInput(s, c, dir, input, Array.isArray(input) ? -1 : n++, true)));
  });
  results.catch(() => {}); // judged (and any error reported) by judgeFuzz
  return { command: c, dir, results };
}

/** The runs judged in their order; on a failure, fast-check's own run again, which shrinks it. */
export async function judgeFuzz(s: Subject, f: Fuzzed, runs: number, seed: number): Promise<void> {
  const results = await f.results;
  s.findings.exercised("fuzz", results.length);
  if (results.some((r) => judge(s, f.command, r) !== null)) await shrink(s, f.command, f.dir, runs, seed);
}
