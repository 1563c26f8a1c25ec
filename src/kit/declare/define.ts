/**
 * A tool is data. `defineTool` and `defineCommand` take the declaration and
 * check it once, at start-up, against the contract: a declaration that breaks
 * it is a programming error and fails loudly before any user input is read.
 */
import type * as z from "zod/mini";
import { TIER1_VERBS, type Tier1Verb } from "../base/index.ts";
import type { EnvVar } from "../identity/index.ts";
import type { ErrorCode, OutcomeUnit } from "../output/index.ts";
import {
  checkExampleShapes,
  checkRequired,
  checkSchemas,
  checkVerb,
  commandName,
  ENV_NAME,
  NAME,
  pageOf,
} from "./check-command.ts";
import type { CommandContext } from "./context.ts";
import { callerFile, mistakeAt, shown, type Place } from "./mistakes.ts";

export type FlagsSchema = z.ZodMiniObject;
export type ResultSchema = z.ZodMiniType;

export type { EnvScope, EnvVar, Lifetime } from "../identity/index.ts";

export type { OutcomeUnit } from "../output/index.ts";

export interface SecretOut {
  readonly name: string;
  readonly description: string;
}

/** What a mutating tool's plans are judged by (contract §8): the kit sets it on `apply` and `target list`. */
export interface WritesDecl {
  /** The plan context field naming the folder a plan acts on; null when the tool's plans act on no folder. */
  readonly root: string | null;
  /** Each action, with what an item of it may change (its declared effect). */
  readonly actions: readonly { readonly name: string; readonly may: string }[];
}

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
  /**
   * The longest this command may run, in seconds (contract §10): a credential
   * that expires sooner and cannot be refreshed fails it before it starts
   * (CREDENTIAL_EXPIRED), rather than part-way through.
   */
  readonly maxDuration?: number;
  /** Register-once secrets it may return in `meta.secrets_out` (ctx.secretOut): each named as the variable a later job receives it as. */
  readonly secretsOut?: readonly SecretOut[];
  /** Set by the kit on a mutating tool's `apply` and `target list`: what the gate reads from `--describe`. */
  readonly writes?: WritesDecl;
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
  /**
   * Commands the tool's own launcher runs before the kit reads argv (the author tool's `verify`):
   * listed in `--help` and among an unknown command's `allowed`, never run by the kit.
   */
  readonly launched?: readonly LaunchedCommand[];
}

/** A command outside the kit's declarations, run by the tool's launcher: its word, a summary, its usage. */
export interface LaunchedCommand {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
}

export type Command = CommandSpec<any, any> & {
  /** `verb` or `resource verb`: the words that invoke it. */
  readonly name: string;
  readonly pagination: { readonly defaultLimit: number; readonly maxLimit: number } | null;
  /** The file that declared it, when known: named by a declaration mistake the compile step finds. */
  readonly declaredIn?: string;
};

export interface Tool extends Omit<ToolSpec, "commands"> {
  readonly commands: readonly Command[];
  readonly declaredIn?: string;
}

/** Where each command was declared, for the mistakes the compile step finds later. */
const declaredIn = new WeakMap<object, string>();

/** Declares one command. The const generics keep verbs literal, so a typo is a type error. */
export function defineCommand<const F extends FlagsSchema, const R extends ResultSchema>(
  spec: CommandSpec<F, R>,
): CommandSpec<F, R> {
  const file = spec && typeof spec === "object" ? callerFile() : undefined;
  if (file) declaredIn.set(spec, file);
  return spec;
}

/** The tool's own fields: each a mistake with its fix when absent or malformed. */
function checkToolFields(spec: ToolSpec, fail: (problem: string, fix: string) => never): void {
  const is = (v: unknown) => (v === undefined ? "missing" : shown(v));
  if (typeof spec.name !== "string" || !NAME.test(spec.name))
    fail(
      `name is ${spec.name === undefined ? "missing" : `${shown(spec.name)}, not kebab-case`}`,
      `name the tool a lower-case word, e.g. name: "brain" (spec.yaml's name)`,
    );
  if (typeof spec.version !== "string" || spec.version === "")
    fail(`version is ${is(spec.version)}`, `declare version: "1.0.0" (spec.yaml's version)`);
  if (!Number.isInteger(spec.contractVersion))
    fail(
      `contractVersion is ${is(spec.contractVersion)}, not an integer`,
      `declare contractVersion: 0 (spec.yaml's contract_version)`,
    );
  if (typeof spec.purpose !== "string" || spec.purpose.trim() === "")
    fail(`purpose is ${is(spec.purpose)}`, `declare purpose: two lines at most on what the tool is for`);
  if (!Array.isArray(spec.commands) || spec.commands.length === 0)
    fail(`declares no commands`, `list the commands: commands: [noteGet, noteList, ...]`);
  checkEnv(spec.env ?? [], fail);
}

/** One command: checked field by field (check-command.ts), then given its name and page bounds. */
function commandOf(c: CommandSpec<any, any>, i: number, place: Place): Command {
  const decl = c as unknown as Record<string, unknown>;
  const file = (c && typeof c === "object" && declaredIn.get(c)) || place.file;
  const name = decl && typeof decl === "object" ? commandName(decl) : null;
  const fail: (problem: string, fix: string) => never = mistakeAt({ ...place, file, command: name ?? `#${i + 1}` });
  if (!decl || typeof decl !== "object")
    fail(`is ${shown(decl)}, not a command`, `list what defineCommand({ ... }) returns`);
  if (name === null)
    fail(
      `verb is ${decl.verb === undefined ? "missing" : shown(decl.verb)}`,
      `declare verb: one of ${TIER1_VERBS.join(", ")} (tier 1), or a kebab-case word of your own (tier 2)`,
    );
  checkVerb(decl, fail);
  checkRequired(decl, place.tool, name, fail);
  checkSchemas(decl, fail);
  checkEnv(c.env ?? [], fail);
  checkExampleShapes(decl, fail);
  const pagination = pageOf(decl, fail);
  return { ...c, name, pagination, ...(file ? { declaredIn: file } : {}) };
}

/** The commands `mutationCommands` adds; a tool's own command of the same name collides with one. */
const KIT_WRITE_COMMANDS = new Set(["apply", "target list", "plan-item list", "action list"]);

export function defineTool(spec: ToolSpec): Tool {
  const file = callerFile();
  const place: Place = { file, tool: typeof spec?.name === "string" ? spec.name : "(unnamed)" };
  const fail: (problem: string, fix: string) => never = mistakeAt(place);
  if (!spec || typeof spec !== "object")
    fail(`the declaration is ${shown(spec)}`, `pass defineTool({ name, version, contractVersion, purpose, commands })`);
  checkToolFields(spec, fail);
  const seen = new Set<string>();
  const commands = spec.commands.map((c, i): Command => {
    const command = commandOf(c, i, place);
    if (seen.has(command.name))
      mistakeAt({ ...place, file: command.declaredIn, command: command.name })(
        `declared twice`,
        KIT_WRITE_COMMANDS.has(command.name)
          ? `"${command.name}" is a command the kit gives every tool that writes (mutationCommands): give yours another resource or verb`
          : `list each command once, or give the second its own verb or resource`,
      );
    seen.add(command.name);
    return command;
  });
  const resources = new Set(commands.flatMap((c) => (c.resource ? [c.resource] : [])));
  for (const c of commands)
    if (!c.resource && resources.has(c.verb))
      fail(`"${c.verb}" is both a verb and a resource`, `rename the command "${c.verb}" or the resource "${c.verb}"`);
  return { ...spec, commands, ...(file ? { declaredIn: file } : {}) };
}

function checkEnv(vars: readonly EnvVar[], fail: (problem: string, fix: string) => never): void {
  if (!Array.isArray(vars))
    fail(`env is not a list`, `declare env: [{ name: "X_TOKEN", scope: "read", description: "..." }]`);
  for (const v of vars)
    if (typeof v?.name !== "string" || !ENV_NAME.test(v.name))
      fail(
        `environment variable ${shown(v?.name)} must be SCREAMING_SNAKE`,
        `name it in capitals, e.g. ${String(v?.name ?? "x")
          .toUpperCase()
          .replace(/[^A-Z0-9]+/g, "_")}`,
      );
}
