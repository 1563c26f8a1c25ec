/** contract §9 and §1: the description document, its verbs, its schemas, and its agreement with spec.yaml. */
import { isDeepStrictEqual } from "node:util";
import * as v from "valibot";
import { parse as parseYaml } from "yaml";
import { KIT_UNIVERSAL_FLAGS, UNIVERSAL_FLAGS } from "../base/contract.ts";
import type { Documents } from "../base/documents.ts";
import { inspectStreams } from "../base/inspect.ts";
import type { RunResult } from "../base/sandbox.ts";
import { holds, type Subject } from "../base/subject.ts";
import { ContractDescribe, FLAG_TYPES, normalizeDescribe } from "../base/describe-doc.ts";
import { type CommandDoc, type DescribeDoc, explain } from "../base/schemas.ts";
import { checkCommandEntry } from "./describe-commands.ts";

/** Parses --describe output: a bare JSON document (pretty or compact), never an envelope. */
function readDoc(s: Subject, stdout: string, run: Parameters<Subject["findings"]["fail"]>[2]): unknown {
  try {
    const value = JSON.parse(stdout);
    if (value && typeof value === "object" && "ok" in value && "meta" in value) {
      s.findings.fail("describe.shape", "--describe printed an envelope; it must print the bare document", run);
      return null;
    }
    return value;
  } catch {
    s.findings.fail("describe.shape", "--describe did not print JSON", run);
    return null;
  }
}

/** What describe.shape expects, said in its failures so a tool author can fix them in one go. */
const EXPECTED_SHAPE =
  "{ contract_version, tool, commands: [{ name, verb, tier (1|2), rw (read|write), flags: [{ name, type, required }], result_schema }] }";

/** The kit's describe fields, valid and listing every universal flag (extension describe-schema). */
function checkKitFields(s: Subject, doc: DescribeDoc, kitIssues: readonly string[], r: RunResult): void {
  const f = s.findings;
  f.expect(
    "describe.kit-fields",
    kitIssues.length === 0,
    `the kit's describe fields are missing or malformed: ${kitIssues.length} problem(s): ${kitIssues.join("; ")}`,
    r,
  );
  if (!doc.universal_flags) return;
  const missing = [...UNIVERSAL_FLAGS, ...KIT_UNIVERSAL_FLAGS].filter((u) => !doc.universal_flags!.includes(u));
  f.expect(
    "describe.kit-fields",
    missing.length === 0,
    `universal_flags lacks ${missing.map((m) => `--${m}`).join(", ")}`,
    r,
  );
}

/** The document of the contract's shape, in verify's terms, or null (and why, under describe.shape). */
function parseDescribe(s: Subject, r: RunResult): { doc: DescribeDoc; kitIssues: string[] } | null {
  s.findings.expect("describe.shape", r.exit === 0, `--describe exited ${r.exit}, expected 0`, r);
  const value = readDoc(s, r.stdout, r);
  if (value === null) return null;
  const parsed = v.safeParse(ContractDescribe, value);
  if (parsed.success) return normalizeDescribe(parsed.output);
  const problems = explain(parsed.issues);
  s.findings.fail(
    "describe.shape",
    `the document does not have the contract's shape ${EXPECTED_SHAPE}: ${problems.length} problem(s): ${problems.join("; ")}`,
    r,
  );
  return null;
}

export async function checkDescribe(s: Subject): Promise<DescribeDoc | null> {
  const f = s.findings;
  const r = await s.sandbox.run({ label: "tool --describe", argv: ["--describe"] });
  if (!inspectStreams(s, r)) return null;
  const parsed = parseDescribe(s, r);
  if (!parsed) return null;
  const { doc, kitIssues } = parsed;
  s.doc = doc;
  const names = doc.commands.map((c) => c.name);
  f.expect("describe.shape", new Set(names).size === names.length, `a command is listed twice: ${names.join(", ")}`, r);
  const unknownTypes = doc.commands.flatMap((c) =>
    c.flags.filter((x) => x.type === null).map((x) => `'${c.name}' --${x.name}: '${x.rawType}'`),
  );
  if (unknownTypes.length)
    f.note(
      "describe.shape",
      `flag types verify does not know, so their type probes are skipped: ${unknownTypes.join(", ")} (known: ${Object.keys(FLAG_TYPES).join(", ")})`,
    );
  if (holds(s, "describe-schema")) checkKitFields(s, doc, kitIssues, r);
  for (const c of doc.commands) checkCommandEntry(s, doc, c);
  return doc;
}

export async function checkSpecYaml(s: Subject, doc: DescribeDoc, documents: Documents): Promise<void> {
  const found = await documents.get("spec.yaml");
  if ("missing" in found)
    return s.findings.fail("describe.contract-version", `${found.missing}: nothing to compare contract_version with`);
  const path = found.where;
  let spec: { contract_version?: unknown; name?: unknown; tool?: unknown; version?: unknown };
  try {
    spec = parseYaml(found.text) ?? {};
  } catch (e) {
    return s.findings.fail("describe.contract-version", `${path} is not valid YAML: ${(e as Error).message}`);
  }
  s.findings.expect(
    "describe.contract-version",
    spec.contract_version === doc.contract_version,
    `--describe says contract_version ${doc.contract_version}; ${path} says ${String(spec.contract_version)}`,
  );
  // The contract names no key for the tool's name: `name:` and `tool:` are both read where present.
  for (const key of ["name", "tool"] as const)
    if (spec[key] !== undefined)
      s.findings.expect(
        "describe.contract-version",
        spec[key] === doc.tool,
        `--describe names the tool '${doc.tool}'; spec.yaml's ${key} says '${String(spec[key])}'`,
      );
  if (spec.version !== undefined && doc.version !== null)
    s.findings.expect(
      "describe.contract-version",
      String(spec.version) === doc.version,
      `--describe says version ${doc.version}; spec.yaml says ${String(spec.version)}`,
    );
}

/** `<command> --describe` describes that command, exactly as the tool's document does. */
export async function checkCommandDescribe(s: Subject, c: CommandDoc): Promise<void> {
  const r = await s.sandbox.run({ label: `${c.name} --describe`, argv: [...c.name.split(" "), "--describe"] });
  if (!inspectStreams(s, r)) return;
  const value = readDoc(s, r.stdout, r) as { commands?: unknown[] } | null;
  if (!value) return;
  s.findings.expect(
    "describe.per-command",
    r.exit === 0 &&
      Array.isArray(value.commands) &&
      value.commands.length === 1 &&
      isDeepStrictEqual(value.commands[0], c.raw),
    `'${c.name} --describe' does not describe '${c.name}' as the tool's document does (expected exit 0 and commands: [the tool's entry for '${c.name}'])`,
    r,
  );
}
