/** One tool, verified black-box: every check in the catalogue, probes in parallel. */
import { readdirSync } from "node:fs";
import { checkCommandDescribe, checkDescribe, checkSpecYaml } from "./checks/describe.ts";
import { documentsOf } from "./documents.ts";
import { checkCommand, checkToolLevel, checkToon } from "./checks/commands.ts";
import { checkExamples } from "./checks/examples.ts";
import { fuzzCommand } from "./checks/fuzz.ts";
import { checkGolden, type GoldenOptions } from "./checks/golden.ts";
import { checkCommandHelp, checkSkill, checkToolHelp } from "./checks/introspection.ts";
import { holds, type Subject } from "./inspect.ts";
import { CHECKS, type CheckId, EXTENSIONS, extensionOf, Findings, type ToolReport } from "./report.ts";
import { Pool, Sandbox } from "./sandbox.ts";

export interface VerifyOptions {
  /** Demand every kit extension, claimed or not (the fleet's own CI). */
  strict: boolean;
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
    const doc = JSON.parse(r.stdout) as { env?: { name: string; scope: string }[]; commands?: { env?: { name: string; scope: string }[] }[] };
    const all = [...(doc.env ?? []), ...(doc.commands ?? []).flatMap((c) => c.env ?? [])];
    return [...new Set(all.filter((e) => e.scope === "read" || e.scope === "write").map((e) => e.name))];
  } catch {
    return [];
  } finally {
    probe.dispose();
  }
}

export async function verifyTool(binary: string, pool: Pool, opts: VerifyOptions): Promise<ToolReport> {
  const started = performance.now();
  const sandbox = new Sandbox(binary, pool, await declaredCredentials(binary, pool, opts.timeoutMs), opts.timeoutMs);
  const s: Subject = { sandbox, findings: new Findings(), doc: null, strict: opts.strict, exits: new Map() };
  try {
    const doc = await checkDescribe(s);
    if (doc) {
      const documents = documentsOf(s, doc, opts.share);
      await Promise.all([checkSpecYaml(s, doc, documents), checkSkill(s, doc, documents)]);
      const first = doc.commands[0]!;
      await Promise.all([
        checkToolHelp(s, doc),
        checkToolLevel(s, doc),
        ...(holds(s, "toon") ? [checkToon(s, first)] : []),
        ...doc.commands.flatMap((c) => [...(holds(s, "per-command-describe") ? [checkCommandDescribe(s, c)] : []), checkCommandHelp(s, c), checkCommand(s, c)]),
        ...(holds(s, "examples") ? [checkExamples(s, doc, documents)] : []),
        ...(opts.golden ? [checkGolden(s, doc, { ...opts.golden, siblings: opts.siblings })] : []),
      ]);
      if (opts.fuzz > 0) for (const c of doc.commands) await fuzzCommand(s, c, opts.fuzz, opts.seed);
      else s.findings.skip("fuzz", "not asked for: pass --fuzz N");
      if (!opts.golden) for (const id of ["golden", "golden.siblings", "lists.bounded", "lists.truncation", "lists.cursor", "output.fields-shape", "fs.read-only"] as const) s.findings.skip(id, "needs golden cases: pass --golden DIR");
      // A kit extension the tool does not claim is not held against it (unless --strict).
      for (const id of Object.keys(CHECKS) as CheckId[]) {
        const ext = extensionOf(id);
        if (ext && !holds(s, ext)) s.findings.waive(id, `kit extension '${ext}' (${EXTENSIONS[ext]}): not claimed in --describe's "extensions"; --strict demands it`);
      }
    }
    // Identity: after every probe, HOME is empty and no canary is in any file the tool wrote.
    const homeEntries = readdirSync(sandbox.home);
    s.findings.expect("identity.home", homeEntries.length === 0, `HOME is not empty after the probes: ${homeEntries.join(", ")}`);
    const canaries = Object.entries(sandbox.canaries);
    for (const file of sandbox.writtenFiles()) {
      const hit = canaries.find(([, value]) => file.text.includes(value));
      if (hit) s.findings.fail("identity.canary", `the value of ${hit[0]} was written to ${file.path.replace(sandbox.root, "[SANDBOX]")}`);
    }
    s.findings.exercised("identity.canary");
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
