/** contract §9 and §1: the description document, its verbs, its schemas, and its agreement with spec.yaml. */
import { isDeepStrictEqual } from "node:util";
import * as v from "valibot";
import { parse as parseYaml } from "yaml";
import {
  CREDENTIAL_FLAG,
  FORBIDDEN_VERBS,
  KIT_FLAGS,
  KIT_UNIVERSAL_FLAGS,
  schemaIdFor,
  TIER1_VERBS,
  UNIVERSAL_FLAGS,
} from "../contract.ts";
import type { Documents } from "../documents.ts";
import { ajv, holds, inspectStreams, type Subject } from "../inspect.ts";
import {
  ContractDescribe,
  explain,
  FLAG_TYPES,
  normalizeDescribe,
  type CommandDoc,
  type DescribeDoc,
} from "../schemas.ts";

const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";
const SECRET_NAME = /(_KEY|_TOKEN|_SECRET|PASSWORD|_PAT)$/;

/** Whether a command's listing of a universal flag keeps its kind: a switch stays a switch, a number a number, a value a value. */
function sameKind(name: string, type: string | null): boolean {
  if (type === null) return true;
  if (["json", "describe", "dry-run", "force", "yes", "no-input", "wait", "help", "toon"].includes(name))
    return type === "boolean";
  if (name === "limit") return type === "integer" || type === "number";
  return type === "string" || (name === "fields" && type === "array");
}

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

export async function checkDescribe(s: Subject): Promise<DescribeDoc | null> {
  const f = s.findings;
  const r = await s.sandbox.run({ label: "tool --describe", argv: ["--describe"] });
  if (!inspectStreams(s, r)) return null;
  f.expect("describe.shape", r.exit === 0, `--describe exited ${r.exit}, expected 0`, r);
  const value = readDoc(s, r.stdout, r);
  if (value === null) return null;
  const parsed = v.safeParse(ContractDescribe, value);
  if (!parsed.success) {
    const problems = explain(parsed.issues);
    f.fail(
      "describe.shape",
      `the document does not have the contract's shape ${EXPECTED_SHAPE}: ${problems.length} problem(s): ${problems.join("; ")}`,
      r,
    );
    return null;
  }
  const { doc, kitIssues } = normalizeDescribe(parsed.output);
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

  if (holds(s, "describe-schema")) {
    f.expect(
      "describe.kit-fields",
      kitIssues.length === 0,
      `the kit's describe fields are missing or malformed: ${kitIssues.length} problem(s): ${kitIssues.join("; ")}`,
      r,
    );
    if (doc.universal_flags) {
      const missing = [...UNIVERSAL_FLAGS, ...KIT_UNIVERSAL_FLAGS].filter((u) => !doc.universal_flags!.includes(u));
      f.expect(
        "describe.kit-fields",
        missing.length === 0,
        `universal_flags lacks ${missing.map((m) => `--${m}`).join(", ")}`,
        r,
      );
    }
  }

  // A command may not redefine a universal flag: the contract's, --help, and the kit's it claims.
  const reserved: string[] = [
    ...UNIVERSAL_FLAGS,
    ...KIT_UNIVERSAL_FLAGS.filter((k) => {
      const extension = KIT_FLAGS[k]!.extension;
      return extension === null || holds(s, extension);
    }),
  ];
  for (const c of doc.commands) {
    checkVerb(s, c);
    f.expect(
      "describe.schema-ids",
      schemaIdFor(doc.tool, c.name).test(c.result_schema),
      `'${c.name}' has result schema '${c.result_schema}', expected ${doc.tool}.${c.name.replace(/ /g, ".")}@N`,
    );
    if (holds(s, "describe-schema")) checkJsonSchemas(s, c);
    for (const flag of c.flags) {
      f.expect(
        "identity.credential-flags",
        !CREDENTIAL_FLAG.test(flag.name),
        `'${c.name}' has a credential-shaped flag --${flag.name}; credentials come from the environment`,
      );
      // Listing a universal flag among a command's flags is fine (§3 forbids redefining, not listing): another type is a redefinition.
      if (reserved.includes(flag.name) && !sameKind(flag.name, flag.type)) {
        f.fail(
          KIT_FLAGS[flag.name]?.check ?? "flags.universal",
          `'${c.name}' redefines the universal flag --${flag.name} as ${flag.rawType}`,
        );
      } else f.exercised("flags.universal");
    }
    if (holds(s, "describe-schema"))
      for (const e of c.env)
        f.expect(
          "identity.env-declared",
          e.scope !== "config" || !SECRET_NAME.test(e.name),
          `'${c.name}' declares ${e.name} as plain config; a credential must be scoped read or write`,
        );
  }
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

function checkVerb(s: Subject, c: CommandDoc): void {
  const f = s.findings;
  const words = c.name.split(" ");
  const expectedName = c.resource ? `${c.resource} ${c.verb}` : c.verb;
  f.expect(
    "describe.verbs",
    c.name === expectedName && words.length <= 2,
    `'${c.name}' is not '<resource> <verb>' or '<verb>' (verb '${c.verb}', resource '${c.resource ?? ""}')`,
  );
  f.expect(
    "describe.verbs",
    !(FORBIDDEN_VERBS as readonly string[]).includes(c.verb),
    `'${c.name}' uses the forbidden verb '${c.verb}'`,
  );
  const tier1 = TIER1_VERBS[c.verb];
  if (c.tier === 1) {
    f.expect("describe.verbs", tier1 !== undefined, `'${c.name}' claims tier 1, but '${c.verb}' is not a tier-1 verb`);
    if (tier1)
      f.expect("describe.verbs", c.rw === tier1, `'${c.name}' is classed ${c.rw}; '${c.verb}' is a ${tier1} verb`);
  } else f.expect("describe.verbs", tier1 === undefined, `'${c.name}' claims tier 2, but '${c.verb}' is a tier-1 verb`);
}

function checkJsonSchemas(s: Subject, c: CommandDoc): void {
  const f = s.findings;
  if (!c.input_schema || !c.output_schema) return; // describe.kit-fields has said so
  for (const [which, schema] of [
    ["input", c.input_schema],
    ["output", c.output_schema],
  ] as const) {
    f.expect(
      "describe.json-schema",
      schema.$schema === DRAFT_2020,
      `'${c.name}' ${which}_schema does not declare ${DRAFT_2020}`,
    );
    const valid = ajv.validateSchema(schema) as boolean;
    if (
      !f.expect(
        "describe.json-schema",
        valid,
        `'${c.name}' ${which}_schema is not valid JSON Schema 2020-12: ${ajv.errorsText(ajv.errors)}`,
      )
    )
      continue;
    try {
      ajv.compile(schema);
    } catch (e) {
      f.fail("describe.json-schema", `'${c.name}' ${which}_schema does not compile: ${(e as Error).message}`);
    }
  }
  const props = (c.input_schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((c.input_schema.required ?? []) as string[]);
  const flagNames = c.flags.map((x) => x.name).sort();
  f.expect(
    "describe.json-schema",
    isDeepStrictEqual(Object.keys(props).sort(), flagNames),
    `'${c.name}' flags (${flagNames.join(", ")}) differ from its input_schema properties (${Object.keys(props).sort().join(", ")})`,
  );
  for (const flag of c.flags) {
    const p = props[flag.name];
    if (!p) continue;
    f.expect(
      "describe.json-schema",
      flag.required === required.has(flag.name),
      `'${c.name}' --${flag.name}: required is ${flag.required} in flags, ${required.has(flag.name)} in input_schema`,
    );
    if (flag.type === "enum")
      f.expect(
        "describe.json-schema",
        isDeepStrictEqual(flag.enum, p.enum),
        `'${c.name}' --${flag.name}: enum ${JSON.stringify(flag.enum)} in flags, ${JSON.stringify(p.enum)} in input_schema`,
      );
    if (flag.type === null) continue;
    const jsonType = {
      string: "string",
      enum: "string",
      integer: "integer",
      number: "number",
      boolean: "boolean",
      array: "array",
    }[flag.type];
    f.expect(
      "describe.json-schema",
      p.type === jsonType,
      `'${c.name}' --${flag.name}: type ${flag.type} in flags, ${String(p.type)} in input_schema`,
    );
  }
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
