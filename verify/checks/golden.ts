/**
 * Replays the recorded golden cases, and uses their real data for the
 * checks only real data can drive: bounded lists and cursors (contract §6),
 * --fields keeping the envelope's shape, and read commands leaving the files
 * they were given alone.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  type CasePlaces,
  fill,
  layOut,
  loadCases,
  type LoadedCase,
  normalize,
  saveCase,
  strayPath,
} from "../golden/cases.ts";
import { jsonMismatch, textMismatch } from "../golden/match.ts";
import { inspectEnvelope, inspectStreams } from "../base/inspect.ts";
import type { Subject } from "../base/subject.ts";
import { Sandbox, type RunResult } from "../base/sandbox.ts";
import type { CommandDoc, DescribeDoc } from "../base/schemas.ts";
import { checkList } from "./lists.ts";
import { checkFields } from "./fields.ts";

export interface GoldenOptions {
  dir: string;
  root: string;
  update: boolean;
  /** With CI set, a missing snapshot fails instead of being recorded. */
  ci: boolean;
  /** Other fleet tools by name, as given (--gate PATH); others are found beside the binary or on PATH. */
  siblings?: Readonly<Record<string, string>>;
}

const SIBLING_FLAGS: Readonly<Record<string, string>> = { gate: "--gate PATH" };

/** Another fleet tool a case drives: as given, beside the binary (a dist/ folder, an image's bin/), or on PATH. */
function siblingOf(s: Subject, opts: GoldenOptions, tool: string): string | null {
  const given = opts.siblings?.[tool];
  if (given) return given;
  const beside = join(dirname(s.sandbox.binary), tool);
  if (existsSync(beside)) return beside;
  return Bun.which(tool);
}

const commandOf = (doc: DescribeDoc, argv: readonly string[]): CommandDoc | null =>
  doc.commands.find(
    (c) => c.name.split(" ").every((w, i) => argv[i] === w) && !(argv[c.name.split(" ").length] ?? "-").match(/^[a-z]/),
  ) ?? null;

/** Replays every case; returns the list commands a case drove (their list checks ran on the case's data). */
export async function checkGolden(s: Subject, doc: DescribeDoc, opts: GoldenOptions): Promise<Set<string>> {
  const f = s.findings;
  const dir = join(opts.dir, doc.tool);
  const { cases, errors } = loadCases(dir);
  for (const e of errors) f.fail("golden", `unreadable case ${e}`);
  if (!cases.some((c) => c.spec.argv.length === 1 && c.spec.argv[0] === "--describe")) {
    if (opts.ci && !opts.update)
      f.fail(
        "golden",
        `no golden snapshot of \`${doc.tool} --describe\` in ${dir}; with CI set it is not created: run \`verify --update\` and commit it`,
      );
    else
      cases.push({
        name: "describe",
        path: join(dir, "describe.json"),
        spec: { description: "The tool's public surface: any change shows up here in review.", argv: ["--describe"] },
      });
  }
  const listed = new Map<string, boolean>();
  // A case that drives a tool not to be found is skipped, saying how to supply it: never a crash.
  const missing = new Map<string, string[]>();
  const runnable = cases.filter((c) => {
    const needs = [...new Set((c.spec.setup ?? []).map((st) => st.tool).filter((t): t is string => Boolean(t)))];
    const absent = needs.filter((t) => !siblingOf(s, opts, t));
    for (const t of absent) missing.set(t, [...(missing.get(t) ?? []), c.name]);
    if (needs.length > absent.length) f.exercised("golden.siblings");
    return absent.length === 0;
  });
  for (const [tool, names] of missing)
    f.skip(
      "golden.siblings",
      `${names.length} case(s) drive ${tool}, which is not beside the binary or on PATH (${names.join(", ")}): pass ${SIBLING_FLAGS[tool] ?? `a ${tool} on PATH`} to run them`,
    );
  if (missing.size === 0 && !runnable.some((c) => (c.spec.setup ?? []).some((st) => st.tool))) {
    f.exercised("golden.siblings");
    f.note("golden.siblings", "no golden case drives another tool");
  }
  await Promise.all(
    runnable.map(async (c) => {
      try {
        await replay(s, doc, c, { ...opts }, listed);
      } catch (e) {
        // A case verify cannot finish is that case's failure, with what went wrong: never a crash of verify.
        f.fail("golden", `${c.name}: verify could not finish replaying it: ${(e as Error).message?.split("\n")[0]}`);
      }
    }),
  );
  return new Set([...listed].filter(([, had]) => had).map(([name]) => name));
}

/** A sibling tool's output is that tool's business; here only whether it succeeded. */
const parseEnvelope = (stdout: string): { ok: boolean } | null => {
  try {
    return JSON.parse(stdout) as { ok: boolean };
  } catch {
    return null;
  }
};

type Step = (
  label: string,
  argv: readonly string[],
  stdin?: string,
  env?: Record<string, string>,
  tool?: string,
) => Promise<RunResult>;

/**
 * One run of a case, its tokens filled in; a read's, or a dry run's, folder
 * watched. A read may keep a cache of its own in a repository's git directory
 * (`.git/<tool>/`, as git keeps its index): it is not the files it was given.
 * Anything else that changes is.
 */
function stepper(s: Subject, doc: DescribeDoc, c: LoadedCase, opts: GoldenOptions, places: CasePlaces): Step {
  const f = s.findings;
  const caseDir = places.CASE_DIR;
  return async (label, argv, stdin, env, tool) => {
    const filled = argv.map((a) => fill(a, places));
    const command = tool ? undefined : commandOf(doc, filled);
    const ignored = (p: string) => p.startsWith(places.RUN_DIR) || p.includes(`/.git/${doc.tool}/`);
    const dryRun = command?.rw === "write" && filled.includes("--dry-run");
    const before = command?.rw === "read" || dryRun ? Sandbox.snapshot(caseDir, ignored) : null;
    const r = await s.sandbox.run({
      label: `golden ${c.name}: ${label}`,
      argv: filled,
      stdin: stdin === undefined ? undefined : fill(stdin, places),
      env: env && Object.fromEntries(Object.entries(env).map(([k, val]) => [k, fill(val, places)])),
      program: tool && (siblingOf(s, opts, tool) ?? undefined),
      // Where its `files` were laid out: a relative path in argv names them, and a relative --run-dir is [RUN_DIR].
      cwd: caseDir,
    });
    if (!before) return r;
    const after = Sandbox.snapshot(caseDir, ignored);
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((p) => before.get(p) !== after.get(p));
    const where = changed.map((p) => p.replace(caseDir, "[CASE_DIR]")).join(", ");
    if (dryRun) f.expect("fs.dry-run", changed.length === 0, `'${command!.name} --dry-run' changed ${where}`, r);
    else f.expect("fs.read-only", changed.length === 0, `the read command '${command!.name}' changed ${where}`, r);
    return r;
  };
}

/** The run against its recorded expectation; or, recording (--update, or none yet outside CI), the expectation itself. */
function compare(s: Subject, c: LoadedCase, r: RunResult, actual: ReturnType<typeof normalize>, opts: GoldenOptions) {
  const f = s.findings;
  if (!c.spec.expect || opts.update) {
    if (!c.spec.expect && opts.ci && !opts.update)
      return f.fail(
        "golden",
        `${c.name}: no recorded expectation, and with CI set none is created: run \`verify --update\` and commit it`,
        r,
      );
    // A temporary path no token names would differ on every replay: recorded, the case could never pass.
    const stray = strayPath(JSON.stringify(actual.stdout), s.sandbox.root);
    if (stray)
      return f.fail(
        "golden",
        `${c.name}: not recorded: its output names ${stray}, a temporary path no token stands for; write it under [CASE_DIR], [RUN_DIR] or [TMP], or name it in redact`,
        r,
      );
    c.spec.expect = { exit: r.exit ?? -1, kind: actual.kind, stdout: actual.stdout };
    saveCase(c);
    f.exercised("golden");
    f.note("golden", `recorded ${c.path}`);
    return;
  }
  const exp = c.spec.expect;
  const mismatch =
    r.exit !== exp.exit
      ? `exit ${r.exit}, recorded ${exp.exit}`
      : exp.kind !== actual.kind
        ? `stdout is ${actual.kind}, recorded as ${exp.kind}`
        : exp.kind === "text"
          ? textMismatch((exp.stdout as string[]).join("\n"), (actual.stdout as string[]).join("\n"))
          : jsonMismatch(exp.stdout, actual.stdout);
  f.expect(
    "golden",
    mismatch === null,
    `${c.name} (${c.path}): ${mismatch}; re-record with \`verify --update\` if the change is intended`,
    r,
  );
}

async function replay(
  s: Subject,
  doc: DescribeDoc,
  c: LoadedCase,
  opts: GoldenOptions,
  listed: Map<string, boolean>,
): Promise<void> {
  const f = s.findings;
  const caseDir = s.sandbox.dir(`golden-${c.name}`);
  const places: CasePlaces = {
    CASE_DIR: caseDir,
    RUN_DIR: join(caseDir, "run"),
    ROOT: opts.root,
    HOME: s.sandbox.home,
    TMP: s.sandbox.tmp,
  };
  try {
    layOut(c.spec, places);
  } catch (e) {
    return f.fail("golden", `${c.name}: cannot lay out its files: ${(e as Error).message}`);
  }
  const step = stepper(s, doc, c, opts, places);
  for (const [i, st] of (c.spec.setup ?? []).entries()) {
    const r = await step(`setup ${i + 1}`, st.argv, st.stdin, { ...c.spec.env, ...st.env }, st.tool);
    const env = st.tool ? parseEnvelope(r.stdout) : inspectEnvelope(s, r, commandOf(doc, r.run.argv));
    if (!env?.ok) return f.fail("golden", `${c.name}: setup step ${i + 1} (${st.argv.join(" ")}) failed`, r);
  }
  const r = await step("case", c.spec.argv, c.spec.stdin, c.spec.env);
  const command = commandOf(doc, r.run.argv);
  const isDescribe = r.run.argv.includes("--describe") || r.run.argv.includes("--help");
  const env = isDescribe ? (inspectStreams(s, r), null) : inspectEnvelope(s, r, command);
  compare(s, c, r, normalize(r.stdout, places, c.spec.redact ?? {}, c.spec.redact_text), opts);
  // ok with no object in data is envelope.ok-iff's finding: nothing here to look into.
  if (!env?.ok || !command || env.data === null || typeof env.data !== "object") return;
  await checkFields(s, command, r, env);
  if (command.isList)
    // Paged in the case's own environment: a list that needs its variables (a key, a policy) lists nothing without them.
    listed.set(
      command.name,
      (await checkList(s, command, r.run.argv, { ...(r.run.env ? { env: r.run.env } : {}) })).listed ||
        (listed.get(command.name) ?? false),
    );
}
