/** One tool, verified black-box: every check in the catalogue, probes in parallel. */
import { readdirSync } from "node:fs";
import { checkCommandDescribe, checkDescribe, checkSpecYaml } from "./checks/describe.ts";
import { documentsOf } from "./base/documents.ts";
import { checkCommand, checkToon } from "./checks/commands.ts";
import { checkToolLevel, checkVersion } from "./checks/tool-level.ts";
import { checkEffects } from "./checks/effects.ts";
import { checkExamples } from "./checks/examples.ts";
import { checkTerminal, concludeTerminal } from "./checks/terminal.ts";
import { type Fuzzed, judgeFuzz, startFuzz } from "./checks/fuzz.ts";
import { checkGolden, type GoldenOptions } from "./checks/golden.ts";
import { checkFields } from "./checks/fields.ts";
import { concludeLists } from "./checks/list-proof.ts";
import { checkOwnLists } from "./checks/own-lists.ts";
import { checkPlans } from "./checks/plans.ts";
import { checkLimitHonoured, concludeLimitHonoured } from "./checks/limit-honoured.ts";
import { learnRequiredValues } from "./checks/taught.ts";
import { checkCommandHelp, checkSkill, checkToolHelp } from "./checks/introspection.ts";
import { holds, type Subject } from "./base/subject.ts";
import {
  CHECKS,
  type CheckId,
  CLAIMED_ONLY,
  EXTENSIONS,
  extensionOf,
  Findings,
  type ToolReport,
} from "./base/report.ts";
import type { Pool } from "./base/pool.ts";
import { Sandbox } from "./base/sandbox.ts";
import type { DescribeDoc } from "./base/schemas.ts";

export interface VerifyOptions {
  /** Every check at the tool's claimed level proven: one no probe proved fails. */
  strict: boolean;
  /** Demand every kit extension, claimed or not (the fleet's own CI). */
  allExtensions: boolean;
  /** Where SKILL.md and spec.yaml are, when told (--share); else found as documents.ts says. */
  share: string | null;
  /** Other fleet tools a golden case may drive, by name (--gate PATH). */
  siblings: Readonly<Record<string, string>>;
  golden: GoldenOptions | null;
  fuzz: number;
  seed: number;
  timeoutMs: number;
}

/** Credentials the tool declares get canaries too; the first --describe is read to learn them. */
async function declaredCredentials(binary: string, pool: Pool, timeoutMs: number): Promise<string[]> {
  const probe = new Sandbox(binary, pool, [], timeoutMs);
  try {
    const r = await probe.run({ label: "learn declared credentials", argv: ["--describe"] });
    const doc = JSON.parse(r.stdout) as {
      env?: { name: string; scope: string }[];
      commands?: { env?: { name: string; scope: string }[] }[];
    };
    const all = [...(doc.env ?? []), ...(doc.commands ?? []).flatMap((c) => c.env ?? [])];
    return [...new Set(all.filter((e) => e.scope === "read" || e.scope === "write").map((e) => e.name))];
  } catch {
    return [];
  } finally {
    probe.dispose();
  }
}

/** A check verify cannot finish is that check's failure, with what went wrong: never a crash of verify. */
async function guarded(s: Subject, id: CheckId, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    s.findings.fail(id, `verify could not finish this check: ${(e as Error).message?.split("\n")[0] ?? String(e)}`);
  }
}

/** Every probe of a described tool, in parallel where they can be; then what only the whole picture decides. */
async function probeAll(s: Subject, doc: DescribeDoc, opts: VerifyOptions): Promise<void> {
  const documents = documentsOf(s, doc, opts.share);
  await learnRequiredValues(s, doc);
  await Promise.all([
    guarded(s, "describe.contract-version", () => checkSpecYaml(s, doc, documents)),
    guarded(s, "introspection.skill", () => checkSkill(s, doc, documents)),
  ]);
  const first = doc.commands[0]!;
  await Promise.all([
    guarded(s, "introspection.help", () => checkToolHelp(s, doc)),
    guarded(s, "errors.unknown-command", () => checkToolLevel(s, doc)),
    guarded(s, "introspection.version", () => checkVersion(s, doc)),
    ...(holds(s, "toon") ? [guarded(s, "flags.toon", () => checkToon(s, first))] : []),
    ...doc.commands.flatMap((c) => [
      ...(holds(s, "per-command-describe")
        ? [guarded(s, "describe.per-command", () => checkCommandDescribe(s, c))]
        : []),
      guarded(s, "introspection.help", () => checkCommandHelp(s, c)),
      guarded(s, "flags.universal", () => checkCommand(s, c)),
    ]),
    ...(holds(s, "examples") ? [guarded(s, "examples.run", () => checkExamples(s, doc, documents))] : []),
    guarded(s, "fs.dry-run", () => checkEffects(s, doc)),
    guarded(s, "noninteractive.tty", () => checkTerminal(s, doc)),
    guarded(s, "plans.reapply", () => checkPlans(s, doc)),
    guarded(s, "output.limit-honoured", () => checkLimitHonoured(s, doc)),
    guarded(s, "lists.bounded", async () => {
      // Golden cases first: a list they drove is judged on their data; the rest on the tool's own.
      const drove = opts.golden
        ? await checkGolden(s, doc, { ...opts.golden, siblings: opts.siblings })
        : new Set<string>();
      await checkOwnLists(s, doc, drove, checkFields);
      concludeLists(s, doc);
    }),
  ]);
  concludeTerminal(s);
  concludeLimitHonoured(s);
}

/**
 * --fuzz N: every command's fuzzed runs, started with the probes where runs
 * may overlap (they take a slot only when no probe waits for one), else after
 * them, in today's order; judged after the probes, command by command, so
 * the report does not depend on which run finished first.
 */
async function fuzzAll(s: Subject, doc: DescribeDoc, opts: VerifyOptions, probes: () => Promise<void>): Promise<void> {
  const start = () => doc.commands.map((c) => startFuzz(s, c, opts.fuzz, opts.seed));
  const early: Fuzzed[] | null = opts.fuzz > 0 && s.sandbox.pool.size > 1 ? start() : null;
  await probes();
  const fuzzed = early ?? (opts.fuzz > 0 ? start() : []);
  for (const f of fuzzed) await guarded(s, "fuzz", () => judgeFuzz(s, f, opts.fuzz, opts.seed));
}

/** Checks a run did not reach, said why; and a kit extension the tool does not claim, waived (unless --all-extensions). */
function concludeSkips(s: Subject, doc: DescribeDoc, opts: VerifyOptions): void {
  if (opts.fuzz === 0) s.findings.skip("fuzz", "not asked for: pass --fuzz N");
  if (!opts.golden)
    for (const id of ["golden", "golden.siblings"] as const)
      s.findings.skip(id, "needs golden cases: pass --golden DIR");
  s.findings.skip("output.fields-shape", "no list or golden case gave a result to project");
  if (!doc.commands.some((c) => c.rw === "write")) s.findings.skip("fs.dry-run", "the tool has no write command");
  for (const id of Object.keys(CHECKS) as CheckId[]) {
    const ext = extensionOf(id);
    if (ext && CLAIMED_ONLY.has(ext) && !doc.extensions?.includes(ext))
      s.findings.waive(
        id,
        `kit extension '${ext}' (${EXTENSIONS[ext]}): not claimed in --describe's "extensions"; a kit addition, checked only where claimed, even under --strict`,
      );
    else if (ext && !holds(s, ext))
      s.findings.waive(
        id,
        `kit extension '${ext}' (${EXTENSIONS[ext]}): not claimed in --describe's "extensions"; --all-extensions demands it`,
      );
  }
}

/** Identity (contract §10): after every probe, HOME is empty and no canary is in any file the tool wrote. */
function checkIdentity(s: Subject): void {
  const { sandbox } = s;
  const homeEntries = readdirSync(sandbox.home);
  s.findings.expect(
    "identity.home",
    homeEntries.length === 0,
    `HOME is not empty after the probes: ${homeEntries.join(", ")}`,
  );
  const canaries = Object.entries(sandbox.canaries);
  for (const file of sandbox.writtenFiles()) {
    const hit = canaries.find(([, value]) => file.text.includes(value));
    if (hit)
      s.findings.fail(
        "identity.canary",
        `the value of ${hit[0]} was written to ${file.path.replace(sandbox.root, "[SANDBOX]")}`,
      );
  }
  s.findings.exercised("identity.canary");
}

export async function verifyTool(binary: string, pool: Pool, opts: VerifyOptions): Promise<ToolReport> {
  const started = performance.now();
  const sandbox = new Sandbox(binary, pool, await declaredCredentials(binary, pool, opts.timeoutMs), opts.timeoutMs);
  const s: Subject = {
    sandbox,
    findings: new Findings(),
    doc: null,
    strict: opts.strict,
    allExtensions: opts.allExtensions,
    exits: new Map(),
    gate: opts.siblings.gate ?? null,
  };
  try {
    const described: { doc: DescribeDoc | null } = { doc: null };
    await guarded(s, "describe.shape", async () => void (described.doc = await checkDescribe(s)));
    const doc = described.doc;
    if (doc) {
      await fuzzAll(s, doc, opts, () => probeAll(s, doc, opts));
      concludeSkips(s, doc, opts);
    }
    checkIdentity(s);
    const checks = s.findings.results();
    return {
      binary,
      tool: doc?.tool ?? null,
      ok: checks.every((c) => c.status !== "fail") && doc !== null,
      duration_ms: Math.round(performance.now() - started),
      runs: sandbox.results.length,
      checks,
    };
  } finally {
    sandbox.dispose();
  }
}
