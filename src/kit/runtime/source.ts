/**
 * A tool as the runtime reaches it: its index (compile/tool-index.ts) at
 * once, and only the one command that runs loaded.
 */
import type { ServedProfile } from "../bindings/index.ts";
import { compiledChecks, type Checks, type CompiledValidators } from "../cli/index.ts";
import type { CommandHead, ToolIndex } from "../compile/index.ts";
import type { Command, CommandSpec, Tool } from "../declare/index.ts";

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
