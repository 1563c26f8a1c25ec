/**
 * What the runtime must know of a tool before any command is loaded: the
 * command words, each command's flags as plain specs, its environment, list
 * bounds and stage. A compiled tool carries this index precomputed by the
 * build, so resolving argv, refusing a bad flag and describing the tool cost
 * no schema construction; only the one command that runs is loaded.
 */
import { zodChecks, type Checks } from "../cli/checks.ts";
import type { Command, CommandSpec, EnvVar, Tool } from "../declare/define.ts";
import { fieldPaths } from "../cli/fields.ts";
import { flagSpecsOf, type FlagSpec } from "../cli/flags.ts";

export type CommandHead = Pick<Command, "name" | "resource" | "verb" | "tier" | "rw" | "schema" | "env" | "pagination" | "stage" | "outcome"> & {
  readonly flags: readonly FlagSpec[];
  /** The paths `--fields` may name in the result. */
  readonly fields: readonly string[];
};

export interface ToolIndex {
  readonly name: string;
  readonly version: string;
  readonly contractVersion: number;
  readonly env?: readonly EnvVar[];
  readonly commands: readonly CommandHead[];
}

/** A tool as the runtime uses it: the index now, the rest on demand. */
export interface ToolSource {
  readonly index: ToolIndex;
  /** The whole command that a head names, and how its flags and result are checked. */
  load(head: CommandHead): Promise<{ command: Command; checks: Checks }>;
  /** The describe document of the whole tool (contract §9), as compact JSON. */
  describe(): Promise<string>;
  /** A document the binary carries (SKILL.md, spec.yaml), as built in; null when this build has none. */
  document(file: string): Promise<string | null>;
}

/** JSON-safe: the build writes it into the compiled entry as it is. */
export function indexOf(tool: Tool): ToolIndex {
  return {
    name: tool.name,
    version: tool.version,
    contractVersion: tool.contractVersion,
    ...(tool.env ? { env: tool.env } : {}),
    commands: tool.commands.map(
      (c): CommandHead => ({
        name: c.name,
        ...(c.resource === undefined ? {} : { resource: c.resource }),
        verb: c.verb,
        tier: c.tier,
        rw: c.rw,
        schema: c.schema,
        ...(c.env ? { env: c.env } : {}),
        pagination: c.pagination,
        ...(c.stage ? { stage: c.stage } : {}),
        ...(c.outcome ? { outcome: c.outcome } : {}),
        flags: flagSpecsOf(c.flags),
        fields: fieldPaths(c.result),
      }) as CommandHead,
    ),
  };
}

/** An in-process tool: everything is already loaded. */
export function sourceOf(tool: Tool): ToolSource {
  return {
    index: indexOf(tool),
    load: async (head) => {
      const command = tool.commands.find((c) => c.name === head.name)!;
      return { command, checks: zodChecks(command, head.flags) };
    },
    describe: async () => JSON.stringify((await import("../introspection/describe.ts")).describeTool(tool)),
    // In-process there is no build: SKILL.md is generated from the declaration, and no spec.yaml is carried.
    document: async (file) => (file === "SKILL.md" ? (await import("../introspection/skill.ts")).toolSkill((await import("../introspection/describe.ts")).describeTool(tool)) : null),
  };
}

/**
 * The command a head names, out of what a module under `commands/` declares:
 * one command or a list of them. The bare declaration gets the name and
 * bounds the index computed from the full tool (`defineTool`).
 */
export function commandIn(declared: unknown, head: CommandHead): Command {
  const specs: readonly CommandSpec<any, any>[] = Array.isArray(declared) ? declared : [declared as CommandSpec<any, any>];
  const spec = specs.find((s) => s && s.verb === head.verb && (s.resource ?? undefined) === (head.resource ?? undefined));
  if (!spec) throw new Error(`the module loaded for "${head.name}" does not declare it`);
  return { ...spec, name: head.name, pagination: head.pagination };
}
