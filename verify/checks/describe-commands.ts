/**
 * contract §1, §3, §9, §10 for each command --describe lists: a canonical
 * verb of the right class, a result schema id, valid schemas that agree with
 * the flags (extension describe-schema), no credential-shaped flag, and no
 * universal flag redefined.
 */
import { isDeepStrictEqual } from "node:util";
import {
  CREDENTIAL_FLAG,
  FORBIDDEN_VERBS,
  KIT_FLAGS,
  KIT_UNIVERSAL_FLAGS,
  schemaIdFor,
  TIER1_VERBS,
  UNIVERSAL_FLAGS,
} from "../base/contract.ts";
import { ajv } from "../base/inspect.ts";
import type { CommandDoc, DescribeDoc } from "../base/schemas.ts";
import { holds, type Subject } from "../base/subject.ts";

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

/** Both schemas declare and are JSON Schema 2020-12, and compile. */
function checkSchemasValid(s: Subject, c: CommandDoc, input: Record<string, unknown>, output: Record<string, unknown>) {
  const f = s.findings;
  for (const [which, schema] of [
    ["input", input],
    ["output", output],
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
}

const JSON_TYPES: Readonly<Record<string, string>> = {
  string: "string",
  enum: "string",
  integer: "integer",
  number: "number",
  boolean: "boolean",
  array: "array",
};

/** Every command's schemas are valid, and its input_schema agrees with its flag list (extension describe-schema). */
function checkJsonSchemas(s: Subject, c: CommandDoc): void {
  const f = s.findings;
  if (!c.input_schema || !c.output_schema) return; // describe.kit-fields has said so
  checkSchemasValid(s, c, c.input_schema, c.output_schema);
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
    f.expect(
      "describe.json-schema",
      p.type === JSON_TYPES[flag.type],
      `'${c.name}' --${flag.name}: type ${flag.type} in flags, ${String(p.type)} in input_schema`,
    );
  }
}

/** reserved: the universal flags a command may not redefine: the contract's, --help, and the kit's the tool claims. */
const reservedFlags = (s: Subject): string[] => [
  ...UNIVERSAL_FLAGS,
  ...KIT_UNIVERSAL_FLAGS.filter((k) => {
    const extension = KIT_FLAGS[k]!.extension;
    return extension === null || holds(s, extension);
  }),
];

/** One command's entry: its verb, schema id, schemas, flags (none credential-shaped, none redefining a universal one), env. */
export function checkCommandEntry(s: Subject, doc: DescribeDoc, c: CommandDoc): void {
  const f = s.findings;
  const reserved = reservedFlags(s);
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
    if (reserved.includes(flag.name) && !sameKind(flag.name, flag.type))
      f.fail(
        KIT_FLAGS[flag.name]?.check ?? "flags.universal",
        `'${c.name}' redefines the universal flag --${flag.name} as ${flag.rawType}`,
      );
    else f.exercised("flags.universal");
  }
  if (holds(s, "describe-schema"))
    for (const e of c.env)
      f.expect(
        "identity.env-declared",
        e.scope !== "config" || !SECRET_NAME.test(e.name),
        `'${c.name}' declares ${e.name} as plain config; a credential must be scoped read or write`,
      );
}
