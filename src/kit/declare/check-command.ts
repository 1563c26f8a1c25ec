/**
 * contract §1, §6, §9: one command's declaration held to the contract, field
 * by field, before anything reads it. Each check throws the mistake with its
 * fix (mistakes.ts); the order is the order a reader would fix them in.
 */
import { FORBIDDEN_SYNONYMS, isTier1Verb, TIER1_VERBS } from "../base/index.ts";
import { kebab, nearest, UNIVERSAL_FLAG_NAMES } from "../cli/index.ts";
import { CREDENTIAL_FLAG } from "../identity/index.ts";
import { KIT_DEFAULT_LIMIT, KIT_MAX_LIMIT } from "../lists/index.ts";
import { ERROR_CODES } from "../output/index.ts";
import { shown } from "./mistakes.ts";

export const NAME = /^[a-z][a-z0-9-]*$/;
export const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;
const READ_VERBS = ["get", "list"];
const WRITE_VERBS = ["create", "update", "delete", "plan", "apply"];

type Fail = (problem: string, fix: string) => never;
type Decl = Record<string, unknown>;

/** The words that invoke a command, or null when its verb is not even a string. */
export const commandName = (c: Decl): string | null =>
  typeof c.verb !== "string" ? null : typeof c.resource === "string" ? `${c.resource} ${c.verb}` : c.verb;

/** verb, resource, tier and rw: the command's place in the contract's verb table. */
export function checkVerb(c: Decl, fail: Fail): void {
  const verb = c.verb as string;
  if (c.resource !== undefined && (typeof c.resource !== "string" || !NAME.test(c.resource)))
    fail(
      `resource ${shown(c.resource)} is not kebab-case`,
      `name the resource a lower-case word, e.g. resource: "note"`,
    );
  if (!NAME.test(verb))
    fail(`verb ${shown(verb)} is not kebab-case`, `name the verb a lower-case word, e.g. verb: "get"`);
  if (Object.hasOwn(FORBIDDEN_SYNONYMS, verb))
    fail(
      `"${verb}" is a forbidden synonym of "${FORBIDDEN_SYNONYMS[verb]}" (contract §1)`,
      `declare verb: "${FORBIDDEN_SYNONYMS[verb]}", tier: 1`,
    );
  if (c.tier !== 1 && c.tier !== 2)
    fail(
      `tier must be 1 or 2, got ${shown(c.tier)}`,
      `declare tier: ${isTier1Verb(verb) ? 1 : 2} (tier 1 is ${TIER1_VERBS.join(", ")}; any other verb is tier 2)`,
    );
  if (c.tier === 1 && !isTier1Verb(verb))
    fail(`"${verb}" is not a tier-1 verb`, `declare tier: 2, or use a tier-1 verb: ${TIER1_VERBS.join(", ")}`);
  if (c.tier === 2 && isTier1Verb(verb)) fail(`"${verb}" is tier 1, not 2`, `declare tier: 1`);
  if (c.rw !== "read" && c.rw !== "write")
    fail(
      `rw must be "read" or "write", got ${shown(c.rw)}`,
      `declare rw: "read" if it changes nothing, rw: "write" if it changes something`,
    );
  if (READ_VERBS.includes(verb) && c.rw !== "read")
    fail(
      `"${verb}" is a read verb, declared rw: "write"`,
      `declare rw: "read"; a change is planned by create, update, delete or plan`,
    );
  if (WRITE_VERBS.includes(verb) && c.rw !== "write")
    fail(`"${verb}" is a write verb, declared rw: "read"`, `declare rw: "write"`);
}

/** summary, schema id, errors and run: what every command must say. */
export function checkRequired(c: Decl, tool: string, name: string, fail: Fail): void {
  if (typeof c.summary !== "string" || c.summary.trim() === "")
    fail(
      `summary is ${c.summary === undefined ? "missing" : `${shown(c.summary)}`}`,
      `declare summary: one line saying what the command does`,
    );
  if (/[\r\n]/.test(c.summary as string))
    fail(`summary is more than one line`, `keep summary to one line; put the rest in description`);
  const id = `${tool}.${name.replace(" ", ".")}@`;
  if (c.schema === undefined)
    fail(`schema is missing`, `declare schema: "${id}1" (the result schema's id, contract §9)`);
  if (typeof c.schema !== "string" || !c.schema.startsWith(id) || !/^[1-9][0-9]*$/.test(c.schema.slice(id.length)))
    fail(
      `schema must be "${id}N", got ${shown(c.schema)}`,
      `declare schema: "${id}1" (raise N when the result changes incompatibly)`,
    );
  if (!Array.isArray(c.errors))
    fail(
      `errors is ${c.errors === undefined ? "missing" : `${shown(c.errors)}, not a list`}`,
      `declare errors: the codes the command raises beyond the kit's own, e.g. errors: ["NOT_FOUND"], or errors: [] for none`,
    );
  for (const e of c.errors as unknown[]) {
    if (typeof e === "string" && Object.hasOwn(ERROR_CODES, e)) continue;
    const guess = typeof e === "string" ? nearest(e, Object.keys(ERROR_CODES)) : undefined;
    fail(
      `unknown error code ${shown(e)}`,
      guess
        ? `did you mean "${guess}"?`
        : `the kit's codes are a closed set, ERROR_CODES (exported by agent-cli-kit): use the nearest in meaning, e.g. NOT_FOUND, INVALID_INPUT, CONFLICT or UPSTREAM_ERROR`,
    );
  }
  if (typeof c.run !== "function")
    fail(
      `run is ${c.run === undefined ? "missing" : "not a function"}`,
      `declare run: async (ctx) => ({ ... }), returning the result`,
    );
}

/** flags and result are schemas; a flag name never shadows the kit's or looks like a credential. */
export function checkSchemas(c: Decl, fail: Fail): void {
  const shape = (c.flags as { shape?: unknown } | null | undefined)?.shape;
  if (!shape || typeof shape !== "object")
    fail(
      `flags is ${c.flags === undefined ? "missing" : "not a zod object schema"}`,
      `declare flags: z.object({ ... }), or z.object({}) for a command without flags`,
    );
  if (!c.result || typeof c.result !== "object")
    fail(
      `result is ${c.result === undefined ? "missing" : "not a zod schema"}`,
      `declare result: z.object({ ... }), the data a success carries`,
    );
  for (const name of Object.keys(shape as object).map(kebab)) {
    if (UNIVERSAL_FLAG_NAMES.has(name))
      fail(
        `flag --${name} is universal; the kit provides it`,
        `remove ${name} from flags and read ctx's universal value instead`,
      );
    if (CREDENTIAL_FLAG.test(name))
      fail(
        `flag --${name} looks like a credential; credentials come from the environment (contract §10)`,
        `remove the flag and declare an env variable with scope "read" or "write"`,
      );
    if (!NAME.test(name))
      fail(`flag --${name} must be kebab-case`, `name the flag's key in camelCase (its flag is the kebab-case of it)`);
  }
}

/** A command that returns a page declares its bounds (contract §6); absent, the kit's default. */
export function pageOf(c: Decl, fail: Fail): { defaultLimit: number; maxLimit: number } | null {
  if (c.verb !== "list" && c.list === undefined) return null;
  const list = (c.list ?? { defaultLimit: KIT_DEFAULT_LIMIT }) as { defaultLimit?: unknown; maxLimit?: unknown };
  const fix = `declare list: { defaultLimit: 20, maxLimit: 100 }: defaultLimit within 1..${KIT_DEFAULT_LIMIT}, maxLimit at least defaultLimit (${KIT_MAX_LIMIT} if left out)`;
  const d = list.defaultLimit;
  if (typeof d !== "number" || !Number.isInteger(d) || d < 1 || d > KIT_DEFAULT_LIMIT)
    fail(`list.defaultLimit must be an integer within 1..${KIT_DEFAULT_LIMIT}, got ${shown(d)}`, fix);
  const max = list.maxLimit ?? KIT_MAX_LIMIT;
  if (typeof max !== "number" || !Number.isInteger(max) || max < (d as number))
    fail(`list.maxLimit must be an integer at least defaultLimit (${d}), got ${shown(list.maxLimit)}`, fix);
  return { defaultLimit: d as number, maxLimit: max as number };
}

/** Each example is argv and a summary; whether the argv parses is the compile step's check. */
export function checkExampleShapes(c: Decl, fail: Fail): void {
  if (c.examples === undefined) return;
  if (!Array.isArray(c.examples))
    fail(`examples is not a list`, `declare examples: [{ argv: ["--id", "x"], summary: "One item." }]`);
  (c.examples as Decl[]).forEach((e, i) => {
    if (!Array.isArray(e?.argv) || !e.argv.every((a) => typeof a === "string"))
      fail(
        `example ${i + 1}'s argv is not a list of strings`,
        `write argv as the words after the command, one string per word: argv: ["--title", "Harbour history"]`,
      );
    if (typeof e.summary !== "string" || e.summary.trim() === "")
      fail(`example ${i + 1} has no summary`, `add summary: one line saying what the example does`);
  });
}
