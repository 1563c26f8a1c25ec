/**
 * contract §9 and §12, the one compile step: a tool's declaration in; its index, describe
 * document, SKILL.md and validators out. The build writes them into the
 * binary; an in-process run (the tests, `runMain`) uses the same result in
 * memory, so both run the same checks on the same derived data.
 *
 *   declaration (zod) → JSON Schema → { index, describe, skill, validators }
 */
import { type Command, DeclarationError, placeText, type Tool } from "../declare/index.ts";
import { credentialNames } from "../identity/index.ts";
import { type CommandSchemas, type DescribeDoc, describeTool, toolSkill } from "../introspection/index.ts";
import { checkExamples } from "./examples.ts";
import { jsonSchemaOf } from "./json-schema.ts";
import { fieldPathsFrom, flagSpecsFrom, kebabFlagsSchema, unparseableFlag } from "./specs.ts";
import { checkStandIn } from "./stand-in.ts";
import type { CommandHead, ToolIndex } from "./tool-index.ts";
import { validatorsOf, type CommandValidators } from "./validators.ts";

export type { CommandValidators } from "./validators.ts";
export { listedTools } from "./extension-tools.ts";
/** The string formats compiled validators check: a validator made elsewhere (a receiver's) checks the same. */
export * as formats from "./formats.ts";
/** What `compileTool` throws for a tool author's mistake (one line, no stack). */
export { DeclarationError } from "../declare/index.ts";
export type { CommandHead, ToolIndex } from "./tool-index.ts";

export interface CompiledTool {
  readonly index: ToolIndex;
  readonly describe: DescribeDoc;
  readonly skill: string;
  /** By command name. */
  readonly validators: Readonly<Record<string, CommandValidators>>;
}

/** JSON-safe: the build writes it into the compiled entry as it is. */
function headOf(c: Command, s: CommandSchemas, fields: string[]): CommandHead {
  return {
    name: c.name,
    ...(c.resource === undefined ? {} : { resource: c.resource }),
    verb: c.verb,
    tier: c.tier,
    rw: c.rw,
    ...(c.person ? { person: true } : {}),
    schema: c.schema,
    ...(c.env ? { env: c.env } : {}),
    pagination: c.pagination,
    ...(c.stage ? { stage: c.stage } : {}),
    ...(c.outcome ? { outcome: c.outcome } : {}),
    ...(c.next ? { next: c.next } : {}),
    flags: s.specs,
    fields,
  } as CommandHead;
}

/**
 * `sources`: the files the binary will bundle (the build passes them), so a
 * `z.` member the stand-in lacks fails here, not in the binary.
 */
export function compileTool(tool: Tool, opts: { sources?: readonly string[] } = {}): CompiledTool {
  const schemas = new Map<string, CommandSchemas>();
  const validators: Record<string, CommandValidators> = {};
  const heads = tool.commands.map((c) => {
    const where = placeText({ file: c.declaredIn ?? tool.declaredIn, tool: tool.name, command: c.name });
    const flags = jsonSchemaOf(c.flags, "input", `${where}: flags`);
    const unparseable = unparseableFlag(flags);
    if (unparseable)
      throw new DeclarationError(
        where,
        `flag --${unparseable.name} takes ${unparseable.takes}, which the command line cannot give`,
        `declare --${unparseable.name} as a string, number, integer, boolean or enum, or a list of one of those (the flag repeated); give each part of a structured value its own flag`,
      );
    const output = jsonSchemaOf(c.result, "output", `${where}: result`);
    if (output.type !== "object")
      throw new DeclarationError(
        where,
        `result is not an object schema (its JSON Schema is ${JSON.stringify(output.type ?? Object.keys(output).filter((k) => k !== "$schema"))})`,
        "declare result: z.object({ ... }): an envelope's data is always an object (contract §2)",
      );
    const s: CommandSchemas = { input: kebabFlagsSchema(flags), output, specs: flagSpecsFrom(flags) };
    schemas.set(c.name, s);
    validators[c.name] = validatorsOf(flags, output);
    checkExamples(tool.name, c, s.specs, () => validators[c.name]!.live(), where);
    return headOf(c, s, fieldPathsFrom(output));
  });
  // After the schemas, so a declaration's own mistake is named by its command first.
  checkStandIn(tool, opts.sources ?? []);
  const describe = describeTool(tool, (c) => schemas.get(c.name)!);
  const index: ToolIndex = {
    name: tool.name,
    version: tool.version,
    contractVersion: tool.contractVersion,
    ...(tool.env ? { env: tool.env } : {}),
    commands: heads,
    credentials: credentialNames(tool),
    ...(tool.launched ? { launched: tool.launched } : {}),
  };
  return { index, describe, skill: toolSkill(describe), validators };
}
