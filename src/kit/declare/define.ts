/**
 * A tool is data. `defineTool` and `defineCommand` take the declaration and
 * check it once, at start-up, against the contract: a declaration that breaks
 * it is a programming error and fails loudly before any user input is read.
 */
import type * as z from "zod/mini";
import type { CommandContext } from "../runtime/context.ts";
import { CREDENTIAL_FLAG, type EnvVar } from "../identity/env.ts";
import type { OutcomeUnit } from "../output/envelope.ts";
import { KIT_DEFAULT_LIMIT, KIT_MAX_LIMIT } from "../lists/bounds.ts";
import { ERROR_CODES, type ErrorCode } from "../output/errors.ts";
import { kebab, UNIVERSAL_FLAG_NAMES } from "../cli/flags.ts";
import { FORBIDDEN_SYNONYMS, isTier1Verb, type Tier1Verb } from "./verbs.ts";

export type FlagsSchema = z.ZodMiniObject;
export type ResultSchema = z.ZodMiniType;

export type { EnvScope, EnvVar } from "../identity/env.ts";

export type { OutcomeUnit } from "../output/envelope.ts";

export interface Example {
  readonly argv: readonly string[];
  readonly summary: string;
}

type VerbDecl = { readonly tier: 1; readonly verb: Tier1Verb } | { readonly tier: 2; readonly verb: string };

export type CommandSpec<F extends FlagsSchema = FlagsSchema, R extends ResultSchema = ResultSchema> = VerbDecl & {
  readonly resource?: string;
  readonly rw: "read" | "write";
  /**
   * A person's act (an approval): offered only at the command line. No MCP
   * profile lists it, the declared-tools manifest leaves it out, and it
   * refuses to run when an agent's door (MCP, a job step) started it.
   */
  readonly person?: boolean;
  /** One line: what the command does. */
  readonly summary: string;
  /** Prose for SKILL.md: when to use it and what to do with the result. */
  readonly description?: string;
  readonly flags: F;
  readonly result: R;
  /** Result schema id, `tool.command@N` (contract §9). */
  readonly schema: string;
  /** Codes this command raises beyond the kit's own. */
  readonly errors: readonly ErrorCode[];
  readonly env?: readonly EnvVar[];
  /** A command that returns a page declares its bounds (contract §6). */
  readonly list?: { readonly defaultLimit: number; readonly maxLimit?: number };
  /** A pipeline stage names the artifact it writes and those it reads (contract §7). */
  readonly stage?: { readonly writes: string; readonly reads?: readonly string[] };
  readonly outcome?: OutcomeUnit;
  /**
   * What a caller would run next after a success (meta.next), beyond the
   * pipeline stages that read what this one writes (the kit adds those):
   * command lines with `{tool}`, `{run_dir}` and `{flag:NAME}` filled in.
   */
  readonly next?: readonly string[];
  readonly examples?: readonly Example[];
  readonly run: (ctx: CommandContext<z.output<F>>) => Promise<z.input<R>>;
};

export interface ToolSpec {
  readonly name: string;
  readonly version: string;
  readonly contractVersion: number;
  /** Two lines at most: what the tool is for. */
  readonly purpose: string;
  readonly env?: readonly EnvVar[];
  readonly commands: readonly CommandSpec<any, any>[];
  /** MCP profiles beyond `full` and `read-only` that `tools/<name>/mcp.ts` serves (brain: `memory`). */
  readonly mcpProfiles?: readonly string[];
}

export type Command = CommandSpec<any, any> & {
  /** `verb` or `resource verb`: the words that invoke it. */
  readonly name: string;
  readonly pagination: { readonly defaultLimit: number; readonly maxLimit: number } | null;
};

export interface Tool extends Omit<ToolSpec, "commands"> {
  readonly commands: readonly Command[];
}


const NAME = /^[a-z][a-z0-9-]*$/;
const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

/** Declares one command. The const generics keep verbs literal, so a typo is a type error. */
export function defineCommand<const F extends FlagsSchema, const R extends ResultSchema>(
  spec: CommandSpec<F, R>,
): CommandSpec<F, R> {
  return spec;
}

export function defineTool(spec: ToolSpec): Tool {
  const fail = (what: string): never => {
    throw new Error(`tool ${spec.name}: ${what}`);
  };
  if (!NAME.test(spec.name)) fail(`name must be kebab-case`);
  if (!Number.isInteger(spec.contractVersion)) fail(`contractVersion must be an integer`);
  checkEnv(spec.env ?? [], fail);

  const seen = new Set<string>();
  const commands = spec.commands.map((c): Command => {
    const name = c.resource ? `${c.resource} ${c.verb}` : c.verb;
    const where = (what: string) => fail(`command "${name}": ${what}`);
    if (seen.has(name)) where("declared twice");
    seen.add(name);
    if (c.resource !== undefined && !NAME.test(c.resource)) where("resource must be kebab-case");
    if (!NAME.test(c.verb)) where("verb must be kebab-case");
    if (Object.hasOwn(FORBIDDEN_SYNONYMS, c.verb)) where(`"${c.verb}" is a forbidden synonym of "${FORBIDDEN_SYNONYMS[c.verb]}"`);
    if (c.tier === 1 && !isTier1Verb(c.verb)) where(`"${c.verb}" is not a tier-1 verb`);
    if (c.tier === 2 && isTier1Verb(c.verb)) where(`"${c.verb}" is tier 1, not 2`);
    if (c.verb === "get" || c.verb === "list") {
      if (c.rw !== "read") where(`"${c.verb}" is a read verb`);
    }
    if (["create", "update", "delete", "plan", "apply"].includes(c.verb) && c.rw !== "write") where(`"${c.verb}" is a write verb`);
    const schemaPrefix = `${spec.name}.${name.replace(" ", ".")}@`;
    if (!c.schema.startsWith(schemaPrefix) || !/^[1-9][0-9]*$/.test(c.schema.slice(schemaPrefix.length)))
      where(`schema must be "${schemaPrefix}N", got "${c.schema}"`);
    for (const e of c.errors) if (!Object.hasOwn(ERROR_CODES, e)) where(`unknown error code ${e}`);
    checkEnv(c.env ?? [], where);
    for (const name of Object.keys(c.flags.shape).map(kebab)) {
      if (UNIVERSAL_FLAG_NAMES.has(name)) where(`flag --${name} is universal; the kit provides it`);
      if (CREDENTIAL_FLAG.test(name)) where(`flag --${name} looks like a credential; credentials come from the environment (contract §10)`);
      if (!NAME.test(name)) where(`flag --${name} must be kebab-case`);
    }
    const wantsPage = c.verb === "list" || c.list !== undefined;
    const limits = c.list ?? { defaultLimit: KIT_DEFAULT_LIMIT };
    const maxLimit = limits.maxLimit ?? KIT_MAX_LIMIT;
    if (wantsPage && (limits.defaultLimit < 1 || limits.defaultLimit > KIT_DEFAULT_LIMIT || maxLimit < limits.defaultLimit))
      where(`list bounds must satisfy 1 <= default <= ${KIT_DEFAULT_LIMIT} and default <= max`);
    return { ...c, name, pagination: wantsPage ? { defaultLimit: limits.defaultLimit, maxLimit } : null };
  });
  if (commands.length === 0) fail("declares no commands");
  const resources = new Set(commands.flatMap((c) => (c.resource ? [c.resource] : [])));
  for (const c of commands) if (!c.resource && resources.has(c.verb)) fail(`"${c.verb}" is both a verb and a resource`);
  return { ...spec, commands };
}

function checkEnv(vars: readonly EnvVar[], fail: (what: string) => never): void {
  for (const v of vars) if (!ENV_NAME.test(v.name)) fail(`environment variable ${v.name} must be SCREAMING_SNAKE`);
}

