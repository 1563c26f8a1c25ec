/**
 * What the runtime must know of a tool before any command is loaded: the
 * command words, each command's flags as plain specs, its environment, list
 * bounds and stage. A compiled tool carries this index precomputed by the
 * build, so resolving argv, refusing a bad flag and describing the tool cost
 * no schema construction; only the one command that runs is loaded.
 */
import { compiledChecks, type Checks, type CompiledValidators } from "../cli/checks.ts";
import type { Command, CommandSpec, EnvVar, Tool } from "../declare/define.ts";
import type { FlagSpec } from "../cli/flags.ts";
import type { ServedProfile } from "../bindings/extension.ts";

export type CommandHead = Pick<
  Command,
  | "name"
  | "resource"
  | "verb"
  | "tier"
  | "rw"
  | "person"
  | "schema"
  | "env"
  | "pagination"
  | "stage"
  | "outcome"
  | "next"
> & {
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
  /** The MCP profiles the tool adds (bindings/extension.ts) with their tools as listed, loaded only by a server; none when it adds none. */
  mcpProfiles?(): Promise<Readonly<Record<string, ServedProfile>>>;
}

/** An in-process tool: its commands already loaded, the compile step's output in memory. */
export function sourceOf(
  tool: Tool,
  compiled: {
    index: ToolIndex;
    describe: unknown;
    skill: string;
    validators: Readonly<Record<string, { live(): CompiledValidators }>>;
  },
): ToolSource {
  const text = JSON.stringify(compiled.describe);
  return {
    index: compiled.index,
    load: async (head) => {
      const command = tool.commands.find((c) => c.name === head.name)!;
      return { command, checks: compiledChecks(compiled.validators[head.name]!.live(), head.flags) };
    },
    describe: async () => text,
    // A build carries the tool's own spec.yaml; in-process, the identity it declares stands for it (JSON strings are YAML).
    document: async (file) => (file === "SKILL.md" ? compiled.skill : file === "spec.yaml" ? specOf(tool) : null),
  };
}

/**
 * The command a head names, out of what a module under `commands/` declares:
 * one command or a list of them. The bare declaration gets the name and
 * bounds the index computed from the full tool (`defineTool`).
 */
export function commandIn(declared: unknown, head: CommandHead): Command {
  const specs: readonly CommandSpec<any, any>[] = Array.isArray(declared)
    ? declared
    : [declared as CommandSpec<any, any>];
  const spec = specs.find(
    (s) => s && s.verb === head.verb && (s.resource ?? undefined) === (head.resource ?? undefined),
  );
  if (!spec) throw new Error(`the module loaded for "${head.name}" does not declare it`);
  return { ...spec, name: head.name, pagination: head.pagination };
}

/** The identity a tool declares, as the spec.yaml a build would carry. */
const specOf = (tool: Tool): string =>
  [
    `name: ${JSON.stringify(tool.name)}`,
    `version: ${JSON.stringify(tool.version)}`,
    `contract_version: ${tool.contractVersion}`,
    `purpose: ${JSON.stringify(tool.purpose)}`,
    "",
  ].join("\n");
