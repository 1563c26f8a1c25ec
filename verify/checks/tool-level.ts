/**
 * The tool's own entry (contract §1, §5): an unknown command and each
 * forbidden synonym are usage errors; with the kit's codes and hints
 * (extensions error-codes, hint), UNKNOWN_COMMAND listing the commands and a
 * hint naming the canonical verb.
 */
import { FORBIDDEN_VERBS } from "../base/contract.ts";
import { inspectEnvelope } from "../base/inspect.ts";
import type { DescribeDoc } from "../base/schemas.ts";
import { classOf, holds, type Subject } from "../base/subject.ts";

const CANONICAL: Readonly<Record<string, string>> = {
  info: "get",
  show: "get",
  fetch: "get",
  ls: "list",
  rm: "delete",
  new: "create",
  make: "create",
  run: "apply",
};

/** One unknown command: a usage error; with the kit's codes, UNKNOWN_COMMAND listing those in scope, and a hint. */
async function probeUnknown(s: Subject, names: readonly string[], argv: readonly string[]): Promise<void> {
  const r = await s.sandbox.run({ label: `unknown command ${argv.join(" ")}`, argv: [...argv, "--no-input"] });
  const env = inspectEnvelope(s, r, null);
  if (!env) return;
  const e = env.error;
  const line = argv.join(" ");
  const usage = !env.ok && classOf(s, e!.code, r.exit) === 2;
  const wrong = `'${line}' gave ${e?.code ?? "success"} (exit ${r.exit}), expected a usage error (exit 2)`;
  if (!s.findings.expect("errors.unknown-command", usage, wrong, r)) return;
  const scope = argv.length === 2 ? names.filter((n) => n.startsWith(`${argv[0]} `)) : names;
  if (holds(s, "error-codes")) {
    const allowed = Array.isArray(e!.allowed) ? e!.allowed.map(String) : [];
    const coded = e!.code === "UNKNOWN_COMMAND";
    if (s.findings.expect("errors.kit-codes", coded, `'${line}' gave ${e!.code}, expected UNKNOWN_COMMAND`, r))
      s.findings.expect(
        "errors.kit-codes",
        scope.every((n) => allowed.includes(n)),
        `'${line}': allowed ${JSON.stringify(allowed)} does not list ${scope.join(", ")}`,
        r,
      );
  }
  const verb = CANONICAL[argv.at(-1)!];
  const exists = verb && scope.some((n) => n.split(" ").at(-1) === verb);
  if (exists && holds(s, "hint"))
    s.findings.expect(
      "errors.hint",
      (e!.hint ?? "").includes(verb!),
      `'${line}': the hint does not name the canonical verb '${verb}': ${e!.hint ?? "(no hint)"}`,
      r,
    );
}

/**
 * Kit extension version: `--version` is the kit's addition, not the contract's, so only a tool that
 * claims it is held to it, under --strict too; one that does not is never probed with it.
 */
export async function checkVersion(s: Subject, doc: DescribeDoc): Promise<void> {
  const id = "introspection.version";
  if (!doc.extensions?.includes("version"))
    return s.findings.skip(id, "not claimed in --describe's extensions: a kit addition, not demanded");
  const line = await s.sandbox.run({ label: "--version", argv: ["--version"] });
  const lines = line.stdout.split("\n").filter((l) => l !== "");
  s.findings.expect(
    id,
    line.exit === 0 && lines.length === 1 && lines[0]!.startsWith(`${doc.tool} ${doc.version}`),
    `'--version' exited ${line.exit} printing ${JSON.stringify(line.stdout.slice(0, 200))}; expected one line starting '${doc.tool} ${doc.version}'`,
    line,
  );
  const json = await s.sandbox.run({ label: "--version --json", argv: ["--version", "--json"] });
  const env = inspectEnvelope(s, json, null);
  if (!env) return;
  const version = (env.data as { version?: unknown } | null)?.version;
  s.findings.expect(
    id,
    env.ok && version === doc.version,
    `'--version --json' answered ${env.ok ? `version ${JSON.stringify(version)}` : env.error?.code}; --describe gives ${doc.version}`,
    json,
  );
}

/** The tool's own entry: unknown commands and the forbidden synonyms. */
export async function checkToolLevel(s: Subject, doc: DescribeDoc): Promise<void> {
  const names = doc.commands.map((c) => c.name);
  const resources = [...new Set(doc.commands.map((c) => c.resource).filter((r): r is string => Boolean(r)))];
  // A forbidden verb the tool declares is describe.verbs' finding; probing it again would report one cause twice.
  // Every synonym alone, and two under each resource, rotating, so every resource and every
  // synonym is probed without multiplying the runs.
  const underResources = resources.flatMap((r, i) =>
    [0, 1].map((k) => [r, FORBIDDEN_VERBS[(i * 2 + k) % FORBIDDEN_VERBS.length]!]),
  );
  const attempts: string[][] = [["zz-not-a-command"], ...FORBIDDEN_VERBS.map((w) => [w]), ...underResources].filter(
    (a) => !names.includes(a.join(" ")),
  );
  await Promise.all(attempts.map((argv) => probeUnknown(s, names, argv)));
}
