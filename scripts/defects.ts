/**
 * Proves the suite catches real bugs. Each defect below is one plausible
 * bug, a single exact-string change to one source file (the kit, the fleet's
 * tools, the gate, the ledger, the harness, the verifier). They are applied
 * one at a time: the file changed, the binaries rebuilt (most tests run
 * them), the suite run with --bail so a caught defect stops at its first
 * failing test, and the file put back whatever happens (also on Ctrl-C).
 * First the same suite runs against the clean source, which must pass: were
 * it red, every defect would read as caught. At the end dist/ is rebuilt
 * from the clean source, and a table says which defects the suite caught,
 * and which test failed first.
 *
 *   bun scripts/defects.ts                       every defect against the whole suite (hours on two cores)
 *   bun scripts/defects.ts --only ID[,ID…]       those defects only
 *   bun scripts/defects.ts --tests FILE…         a subset of test files instead of the whole suite (a quick check)
 *   bun scripts/defects.ts --list                the defects, and whether each still matches its file; nothing run
 *   bun scripts/defects.ts --json FILE           the results as JSON too
 *   bun scripts/defects.ts --no-baseline         skip the clean run first (when it was just seen green)
 *
 * Exit 0 with the table: a defect the suite missed is a finding, reported,
 * not a failure of this script. Exit 2 on a usage error, on a stale defect
 * (its text no longer matches its file exactly once: fix the defect, never
 * skip it), and on uncommitted changes to a file a defect would change (an
 * edit made there would be lost when the file is put back). Exit 1 when
 * the suite fails on the clean source or the clean rebuild fails; 130 when
 * interrupted.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const BUN = process.execPath;
const SUITE = ["test", "--parallel=2", "--bail", "--timeout", "120000"];

interface Defect {
  readonly id: string;
  readonly file: string;
  readonly find: string;
  readonly replace: string;
  /** The bug, in plain words. */
  readonly what: string;
}

export const DEFECTS: readonly Defect[] = [
  // ——— the kit: errors, argv, lists, output
  {
    id: "unknown-flag-exit-1",
    file: "src/kit/output/errors.ts",
    find: 'UNKNOWN_FLAG: code("usage",',
    replace: 'UNKNOWN_FLAG: code("internal",',
    what: "an unknown flag exits 1 (internal) instead of 2 (usage)",
  },
  {
    id: "network-error-not-retryable",
    file: "src/kit/output/errors.ts",
    find: 'NETWORK_ERROR: code("upstream", "a connection could not be made", { retryable: true }),',
    replace: 'NETWORK_ERROR: code("upstream", "a connection could not be made", { retryable: false }),',
    what: "a refused connection (NETWORK_ERROR) says retryable: false",
  },
  {
    id: "camel-case-flag-accepted",
    file: "src/kit/cli/argv.ts",
    find: "const flag = byName.get(name);",
    replace: 'const flag = byName.get(name) ?? byName.get(name.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()));',
    what: "an unknown flag spelt in camelCase (--noInput) is accepted as its kebab-case twin",
  },
  {
    id: "cursor-skips-an-item",
    file: "src/kit/lists/paginate.ts",
    find: "const next = rest > 0 ? encode(end, req.fingerprint) : null;",
    replace: "const next = rest > 0 ? encode(end + 1, req.fingerprint) : null;",
    what: "next_cursor points one past the next item: each page skips one",
  },
  {
    id: "limit-ignored",
    file: "src/kit/lists/bounds.ts",
    find: "  return n;",
    replace: "  return bounds.defaultLimit;",
    what: "--limit is checked, then ignored: every page is the default size",
  },
  {
    id: "truncated-ignores-cursor",
    file: "src/kit/runtime/invocation.ts",
    find: "truncated: Boolean(state.page?.pagination.next_cursor) || state.truncationHint !== null,",
    replace: "truncated: state.truncationHint !== null,",
    what: "meta.truncated is false on a page cut by pagination (only a command's own truncation counts)",
  },
  {
    id: "toon-prints-json",
    file: "src/kit/output/emit.ts",
    find: 'asked.json || (!asked.toon && !stdoutIsTTY) ? "json"',
    replace: 'asked.json || !stdoutIsTTY ? "json"',
    what: "--toon prints JSON whenever stdout is not a terminal",
  },
  {
    id: "stderr-not-redacted",
    file: "src/kit/runtime/invocation.ts",
    find: "this.log = createLogger({ write: (s) => io.writeStderr(redact(s)),",
    replace: "this.log = createLogger({ write: (s) => io.writeStderr(s),",
    what: "a command's log lines reach stderr without the redactor: a secret it logs is not masked",
  },
  {
    id: "lost-answer-exits-0",
    file: "src/kit/runtime/invocation.ts",
    find: "the answer could not be written to stdout (${why})\\n`));\n      return 1;",
    replace: "the answer could not be written to stdout (${why})\\n`));\n      return 0;",
    what: "an answer stdout could not take (a full disk) exits 0: a success nobody received reads as done",
  },
  {
    id: "describe-fast-on-terminal",
    file: "src/kit/runtime/built-in-answers.ts",
    find: '(known === "--describe" && ttyBinding(1) !== false)',
    replace: '(known === "--describe" && ttyBinding(1) === null)',
    what: "the binary answers --describe itself on a terminal too: compact JSON where the full path pretty-prints",
  },
  {
    id: "redact-filter-ascii-spaces",
    file: "src/kit/identity/window-filter.ts",
    find: "|[\\t-\\r \\u00a0\\u2028\\u2029]/g;",
    replace: "|[\\t-\\r ]/g;",
    what: "the redactor's first look skips ASCII whitespace only: a secret broken by a no-break space is let through unmasked",
  },
  {
    id: "mcp-error-as-success",
    file: "src/kit/bindings/mcp-answer.ts",
    find: 'return { isError: true, content: [{ type: "text" as const, text: JSON.stringify(forMcp(envelope.error)) }] };',
    replace: 'return { content: [{ type: "text" as const, text: JSON.stringify(forMcp(envelope.error)) }] };',
    what: "an MCP tool call that failed is answered without isError: the client reads it as a success",
  },
  {
    id: "person-act-behind-harness",
    file: "src/kit/runtime/run-tool.ts",
    find: "if (head.person && door) throw personOnly(",
    replace: 'if (head.person && door === "mcp") throw personOnly(',
    what: "a person's act (gate approve) is refused behind MCP only: a job step may run it",
  },
  // ——— the kit: plan → approve → apply
  {
    id: "checksum-not-compared",
    file: "src/kit/mutations/plan.ts",
    find: "if (planChecksum(plan) !== plan.checksum)",
    replace: "if (!plan.checksum)",
    what: "a plan's checksum is required but never compared: a plan edited after planning applies",
  },
  {
    id: "expiry-hour-of-grace",
    file: "src/kit/mutations/plan.ts",
    find: "if (Date.parse(plan.expiry) <= now)",
    replace: "if (Date.parse(plan.expiry) < now - 3_600_000)",
    what: "an expired plan gets an hour's grace (for clock skew) before it is refused",
  },
  {
    id: "signature-or-id",
    file: "src/kit/mutations/admit.ts",
    find: "what, a.signature) || plan.approval_id !== approvalIdOf(a.signature))",
    replace: "what, a.signature) && plan.approval_id !== approvalIdOf(a.signature))",
    what: "apply accepts an approval whose signature does not verify, if its approval_id matches the signature",
  },
  {
    id: "precondition-only-on-takeover",
    file: "src/kit/mutations/apply/held-item.ts",
    find: "const decided = (takenFrom === null ? null : await this.reconcile(takenFrom)) ?? (await this.precondition());",
    replace:
      "const decided = takenFrom === null ? null : ((await this.reconcile(takenFrom)) ?? (await this.precondition()));",
    what: "apply checks an item's precondition only when it took the item over: a target changed since planning is overwritten",
  },
  {
    id: "fence-trusts-heartbeat",
    file: "src/kit/mutations/apply/lease.ts",
    find: "if (!this.lost && this.now() - this.confirmedAt < this.ms / 2) return;",
    replace: "if (!this.lost) return;",
    what: "the fence before an irreversible step never asks the ledger: with no heartbeat a stale owner executes",
  },
  {
    id: "target-list-judges-whole-plan",
    file: "src/kit/mutations/read-commands.ts",
    find: "await assertWithinEffects(judged, m, x);",
    replace: "await assertWithinEffects(plan.items, m, x);",
    what: "each page of `target list` judges the whole plan: the gate's review of a plan of many pages does it once a page, and a page refuses an item it does not show",
  },
  // ——— beside the kit: the ledger, the harness, the gate
  {
    id: "ledger-settles-old-generation",
    file: "src/features/ledger/sqlite.ts",
    find: "lease_until = NULL, updated_at = ? WHERE idempotency_key = ? AND owner = ? AND attempts = ?",
    replace: "lease_until = NULL, updated_at = ? WHERE idempotency_key = ? AND owner = ? AND attempts >= ?",
    what: "the SQLite ledger settles for a stale generation of the owner: the fence is not checked exactly",
  },
  {
    id: "harness-ndjson-not-redacted",
    file: "src/features/harness/artifacts.ts",
    find: 'if (name.endsWith(".ndjson") || name.endsWith(".index.json")) redactedFile(',
    replace: 'if (name.endsWith(".index.json")) redactedFile(',
    what: "a job's .ndjson side files (pages, findings) leave the run dir without the harness's redaction",
  },
  {
    id: "harness-signature-and",
    file: "src/features/harness/sign.ts",
    find: "if (expected.length !== given.length || !timingSafeEqual(expected, given))",
    replace: "if (expected.length !== given.length && !timingSafeEqual(expected, given))",
    what: "the receiver accepts any signature of the right length",
  },
  {
    id: "harness-window-in-ms",
    file: "src/features/harness/sign.ts",
    find: "if (Math.abs(nowMs / 1000 - Number(ts)) > windowSeconds)",
    replace: "if (Math.abs(nowMs / 1000 - Number(ts)) > windowSeconds * 1000)",
    what: "the receiver's timestamp window is read as milliseconds: an hour-old replayed report is fresh",
  },
  {
    id: "gate-approves-never-auto",
    file: "src/gate/judge.ts",
    find: "if (!rule.auto_approve) over.push(",
    replace: "if (rule.auto_approve === undefined) over.push(",
    what: "the gate approves an action its policy says never to auto-approve (auto_approve: false)",
  },
  {
    id: "gate-one-stale-target",
    file: "tools/gate/commands/review.ts",
    find: "if (verdict.stale.length > 0)",
    replace: "if (verdict.stale.length > 1)",
    what: "gate review approves a plan when exactly one of its targets changed since planning",
  },
  // ——— the tools
  {
    id: "brain-id-with-slash",
    file: "tools/brain/lib/notes.ts",
    find: "export const NOTE_ID = /^[a-z0-9][a-z0-9-]{0,79}$/;",
    replace: "export const NOTE_ID = /^[a-z0-9][a-z0-9./-]{0,79}$/;",
    what: "a brain note id may hold dots and slashes: a/../../x passes the id check (path traversal)",
  },
  {
    id: "brain-search-worst-first",
    file: "tools/brain/lib/note-index.ts",
    find: "ORDER BY rank, f.id LIMIT ? OFFSET ?",
    replace: "ORDER BY rank DESC, f.id LIMIT ? OFFSET ?",
    what: "brain search ranks the worst match first (BM25 is negative in FTS5)",
  },
  {
    id: "seo-title-min-5",
    file: "tools/seo/lib/rules-page.ts",
    find: "export const TITLE_RANGE = [10, 60] as const;",
    replace: "export const TITLE_RANGE = [5, 60] as const;",
    what: "seo's title-length rule lets a title of 5 to 9 characters pass",
  },
  {
    id: "seo-severity-floor-exclusive",
    file: "tools/seo/lib/findings.ts",
    find: '?.severity ?? "low"] >= SEVERITY_RANK[f.severity]',
    replace: '?.severity ?? "low"] > SEVERITY_RANK[f.severity]',
    what: "--severity X leaves out findings of severity X itself (the floor is exclusive)",
  },
  {
    id: "seo-parse-memo-by-length",
    file: "tools/seo/lib/dom.ts",
    find: "const seen = recent.find((r) => r.text === text);",
    replace: "const seen = recent.find((r) => r.text.length === text.length);",
    what: "seo's parsed-page memo matches a page by its length: an edit that keeps a page's length is judged on the tree before it",
  },
  // ——— the verifier
  {
    id: "verify-no-hang-cut-short",
    file: "verify/base/sandbox.ts",
    find: "cutShort: timedOut && limit.short,",
    replace: "cutShort: timedOut,",
    what: "verify takes every run killed at its time limit as cut short: a hang never fails noninteractive.no-hang",
  },
  {
    id: "verify-unknown-command-passes",
    file: "verify/checks/tool-level.ts",
    find: 'if (!s.findings.expect("errors.unknown-command", usage, wrong, r)) return;',
    replace: "if (!usage) return;",
    what: "errors.unknown-command never fails: an unknown command that succeeds is skipped over",
  },
  {
    id: "verify-bound-is-own-limit",
    file: "verify/checks/lists.ts",
    find: "const bound = declared ?? pg.limit;",
    replace: "const bound = pg.limit;",
    what: "lists.bounded holds a list to the limit its own meta.pagination claims, not the declared default",
  },
  {
    id: "verify-secrets-out-any-command",
    file: "verify/base/secrets-out.ts",
    find: "s.doc?.commands.find((c) => c.name === env.command)",
    replace: 's.doc?.commands.find((c) => "secrets_out" in c)',
    what: "identity.secrets-out reads the declared names of whichever command declares some, not the one that answered",
  },
  {
    id: "verify-golden-extra-keys",
    file: "verify/golden/match.ts",
    find: "const extra = Object.keys(act).filter((k) => !(k in exp));",
    replace: "const extra = Object.keys(exp).filter((k) => !(k in act));",
    what: "a golden case never fails on keys the output has and the snapshot does not",
  },
  {
    id: "verify-not-executable-exit-1",
    file: "verify/output.ts",
    find: "NOT_EXECUTABLE: 2,",
    replace: "NOT_EXECUTABLE: 1,",
    what: "verify given a file that is not executable exits 1 (internal) instead of 2 (usage)",
  },
];

// ————————————————————————————————————————— options

interface Options {
  readonly only: readonly string[] | null;
  /** Test files to run instead of the whole suite. */
  readonly tests: readonly string[] | null;
  readonly list: boolean;
  readonly json: string | null;
  readonly baseline: boolean;
}

class UsageError extends Error {}

/** `--tests` takes the words up to the next flag. */
function parseArgs(argv: readonly string[]): Options {
  let only: string[] | null = null;
  let tests: string[] | null = null;
  let list = false;
  let json: string | null = null;
  let baseline = true;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--list") list = true;
    else if (a === "--no-baseline") baseline = false;
    else if (a === "--only" || a === "--json") {
      const value = argv[++i];
      if (value === undefined || value.startsWith("--")) throw new UsageError(`${a} needs a value`);
      if (a === "--json") json = resolve(value);
      else only = value.split(",").filter(Boolean);
    } else if (a === "--tests") {
      tests = [];
      while (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) tests.push(argv[++i]!);
      if (tests.length === 0) throw new UsageError("--tests needs at least one test file");
    } else throw new UsageError(`unexpected argument '${a}'; flags: --only, --tests, --list, --json, --no-baseline`);
  }
  const unknown = (only ?? []).filter((id) => !DEFECTS.some((d) => d.id === id));
  if (unknown.length > 0) throw new UsageError(`no defect ${unknown.join(", ")}; --list shows the ids`);
  const missing = (tests ?? []).filter((f) => !existsSync(resolve(ROOT, f)));
  // bun would run no test at all and exit 1, which would read as a caught defect.
  if (missing.length > 0) throw new UsageError(`no test file ${missing.join(", ")}`);
  return { only, tests, list, json, baseline };
}

// ————————————————————————————————————————— applying a defect

const occurrences = (text: string, find: string): number => text.split(find).length - 1;

/** Each defect whose text does not match its file exactly once, with how often it does. */
function staleOf(defects: readonly Defect[]): Map<string, string> {
  const stale = new Map<string, string>();
  for (const d of defects) {
    const path = join(ROOT, d.file);
    const n = existsSync(path) ? occurrences(readFileSync(path, "utf8"), d.find) : -1;
    if (n !== 1) stale.set(d.id, n === -1 ? "its file is gone" : `its text matches ${n} times, not once`);
  }
  return stale;
}

/** Files among `files` with uncommitted changes: a defect there would run on code nobody committed. */
function uncommitted(files: readonly string[]): string[] {
  const r = Bun.spawnSync(["git", "status", "--porcelain", "--", ...files], { cwd: ROOT });
  if (r.exitCode !== 0) throw new UsageError(`git status failed: ${r.stderr.toString().trim()}`);
  return r.stdout.toString().split("\n").filter(Boolean);
}

/** Puts the file back; idempotent, so the finally and a signal may both call it. */
let restore: (() => void) | null = null;

function applyDefect(d: Defect): void {
  const path = join(ROOT, d.file);
  const clean = readFileSync(path, "utf8");
  const at = clean.indexOf(d.find);
  // Sliced, not String.replace: a `$` in the replacement is text, not a pattern.
  writeFileSync(path, clean.slice(0, at) + d.replace + clean.slice(at + d.find.length));
  restore = () => {
    writeFileSync(path, clean);
    restore = null;
  };
}

// ————————————————————————————————————————— running

let child: Bun.Subprocess | null = null;
let interrupted = false;

/** Runs `argv` with stdout and stderr into `log`, in order; its own process group, so a signal stops all of it. */
async function runLogged(argv: readonly string[], log: string): Promise<number> {
  const fd = openSync(log, "a");
  try {
    child = Bun.spawn([...argv], { cwd: ROOT, stdout: fd, stderr: fd, stdin: "ignore", detached: true });
    return await child.exited;
  } finally {
    child = null;
    closeSync(fd);
  }
}

const build = (log: string): Promise<number> => runLogged([BUN, "scripts/build.ts"], log);

/**
 * The first failing test in bun's output, as `file: describe > test`: bun
 * heads each file's results with `path:` and marks a failure `(fail) name`.
 */
function firstFailure(output: string): string | null {
  let file = "";
  for (const line of output.split("\n")) {
    const head = /^(\S+\.test\.[cm]?[jt]sx?):$/.exec(line);
    if (head) file = head[1]!;
    const failed = /^\(fail\) (.*?)(?: \[[\d.]+m?s\])?$/.exec(line);
    if (failed) return `${file}: ${failed[1]}`;
    if (line.startsWith("# Unhandled error")) return `${file}: an unhandled error between tests`;
  }
  return null;
}

type Verdict = "yes" | "no" | "build failed" | "interrupted";

interface Result {
  readonly id: string;
  readonly file: string;
  readonly what: string;
  readonly caught: Verdict;
  readonly first_failure: string | null;
  readonly seconds: number;
  readonly log: string | null;
}

/** One defect: applied, built, tested, and put back whatever happens. */
async function runDefect(d: Defect, tests: readonly string[] | null, logs: string): Promise<Result> {
  const started = performance.now();
  const log = join(logs, `${d.id}.log`);
  const done = (caught: Verdict, first: string | null = null): Result => ({
    id: d.id,
    file: d.file,
    what: d.what,
    caught,
    first_failure: first,
    seconds: Math.round((performance.now() - started) / 1000),
    log,
  });
  applyDefect(d);
  try {
    if ((await build(log)) !== 0) return done(interrupted ? "interrupted" : "build failed");
    const code = await runLogged([BUN, ...SUITE, ...(tests ?? [])], log);
    if (interrupted) return done("interrupted");
    if (code === 0) return done("no");
    return done("yes", firstFailure(readFileSync(log, "utf8")) ?? `bun test exited ${code}`);
  } finally {
    restore?.();
  }
}

/** The suite against the clean source: null when it passes, else what failed first. */
async function baselineFailure(tests: readonly string[] | null, logs: string): Promise<string | null> {
  const log = join(logs, "baseline.log");
  if ((await build(log)) !== 0) return `the build failed (${log})`;
  const code = await runLogged([BUN, ...SUITE, ...(tests ?? [])], log);
  if (code === 0 || interrupted) return null;
  return `${firstFailure(readFileSync(log, "utf8")) ?? `bun test exited ${code}`} (${log})`;
}

// ————————————————————————————————————————— the table

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function printResults(results: readonly Result[], tests: readonly string[] | null): void {
  const head = ["id", "file", "what", "caught", "first failing test", "s"];
  console.log(
    `\n${table([head, ...results.map((r) => [r.id, r.file, r.what, r.caught, r.first_failure ?? "", String(r.seconds)])])}`,
  );
  const caught = results.filter((r) => r.caught === "yes").length;
  const ran = tests ? `the test files ${tests.join(" ")}` : "the whole suite";
  console.log(`\ncaught ${caught} of ${results.length}, each against ${ran} (bun ${SUITE.join(" ")})`);
  for (const r of results.filter((x) => x.caught !== "yes" && x.log)) console.log(`${r.id}: ${r.caught}; log ${r.log}`);
}

function printList(defects: readonly Defect[], stale: ReadonlyMap<string, string>): void {
  const rows = defects.map((d) => [d.id, d.file, d.what, stale.has(d.id) ? `stale: ${stale.get(d.id)}` : "matches"]);
  console.log(table([["id", "file", "what", "text"], ...rows]));
}

// ————————————————————————————————————————— main

/** Ctrl-C: the run in progress stopped, its file put back; a second one leaves at once. */
function onSignal(): void {
  restore?.();
  if (child) process.kill(-child.pid, "SIGTERM");
  if (interrupted) {
    console.error("interrupted again: dist/ may hold a defect's build; run bun scripts/build.ts");
    process.exit(130);
  }
  interrupted = true;
  console.error("interrupted: the file is put back; rebuilding dist/ from the clean source (Ctrl-C again to skip)");
}

/** Whether the chosen defects may run: none stale (each printed as stale), no uncommitted change to their files. */
function mayRun(chosen: readonly Defect[]): boolean {
  const stale = staleOf(chosen);
  if (stale.size > 0) {
    printList(
      chosen.filter((d) => stale.has(d.id)),
      stale,
    );
    console.error("stale defects: fix their text in scripts/defects.ts; nothing was run");
    return false;
  }
  const dirty = uncommitted([...new Set(chosen.map((d) => d.file))]);
  if (dirty.length > 0)
    console.error(
      `uncommitted changes to files a defect would change; commit or stash them first:\n${dirty.join("\n")}`,
    );
  return dirty.length === 0;
}

async function main(): Promise<number> {
  const opts = parseArgs(process.argv.slice(2));
  const chosen = opts.only ? DEFECTS.filter((d) => opts.only!.includes(d.id)) : DEFECTS;
  if (opts.list) {
    const stale = staleOf(chosen);
    printList(chosen, stale);
    return stale.size > 0 ? 2 : 0;
  }
  if (!mayRun(chosen)) return 2;
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const logs = mkdtempSync(join(tmpdir(), "defects-"));
  if (opts.baseline) {
    console.log("the suite against the clean source first");
    const red = await baselineFailure(opts.tests, logs);
    if (red) {
      console.error(`the suite fails on the clean source, so no defect could be told caught: ${red}`);
      return 1;
    }
  }
  const results: Result[] = [];
  for (const [i, d] of chosen.entries()) {
    if (interrupted) break;
    process.stdout.write(`[${i + 1}/${chosen.length}] ${d.id} (${d.file}) … `);
    const r = await runDefect(d, opts.tests, logs);
    results.push(r);
    console.log(`${r.caught === "yes" ? `caught: ${r.first_failure}` : r.caught} (${r.seconds} s)`);
  }
  console.log("rebuilding dist/ from the clean source");
  const rebuilt = (await build(join(logs, "clean-build.log"))) === 0;
  printResults(results, opts.tests);
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify({ tests: opts.tests ?? "all", results }, null, 2)}\n`);
  if (!rebuilt) console.error(`the clean rebuild failed: ${join(logs, "clean-build.log")}`);
  return interrupted ? 130 : rebuilt ? 0 : 1;
}

if (import.meta.main)
  process.exit(
    await main().catch((e) => {
      if (!(e instanceof UsageError)) throw e;
      console.error(`defects: ${e.message}`);
      return 2;
    }),
  );
