/**
 * contract §9, layer 2: the machine description of a tool, built from the
 * zod definitions alone. `--help` and SKILL.md are renderings of this same
 * document, so the three views cannot disagree. Loaded only on demand: the
 * JSON Schema it carries is not needed to run a command.
 */
import * as z from "zod/mini";
import { envOf, type Command, type Example, type FlagsSchema, type ResultSchema, type Tool } from "../declare/define.ts";
import { ERROR_CODES, EXIT, KIT_ERROR_CODES, type ErrorCode } from "../output/errors.ts";
import { DOCUMENT_FLAGS, KIT_EXTENSIONS, type CommandDoc, type DescribeDoc, type FlagDoc, type JsonSchema } from "./describe-doc.ts";
import { flagSpecsOf, kebab, UNIVERSAL_FLAGS } from "../cli/flags.ts";

const DRAFT = "draft-2020-12" as const;

/** JSON Schema 2020-12 of the flags, with the kebab-case names the command line and --params use. */
export function flagsJsonSchema(schema: FlagsSchema): JsonSchema {
  const js = z.toJSONSchema(schema, { target: DRAFT, io: "input", unrepresentable: "any" }) as JsonSchema;
  const props = (js.properties ?? {}) as Record<string, JsonSchema>;
  js.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [kebab(k), v]));
  if (Array.isArray(js.required)) js.required = (js.required as string[]).map(kebab);
  js.additionalProperties = false;
  return js;
}

export const resultJsonSchema = (schema: ResultSchema): JsonSchema =>
  z.toJSONSchema(schema, { target: DRAFT, io: "output", unrepresentable: "any" }) as JsonSchema;

function flagDocs(command: Command, input: JsonSchema): FlagDoc[] {
  const props = (input.properties ?? {}) as Record<string, JsonSchema>;
  return flagSpecsOf(command.flags).map((spec) => {
    const p = props[spec.name] ?? {};
    const doc: FlagDoc = { name: spec.name, type: spec.kind, required: spec.required, description: (p.description as string | undefined) ?? null };
    if (p.default !== undefined) doc.default = p.default;
    if (spec.enumValues) doc.enum = [...spec.enumValues];
    if (typeof p.minimum === "number") doc.minimum = p.minimum;
    if (typeof p.maximum === "number") doc.maximum = p.maximum;
    if (spec.itemKind) doc.items = spec.itemKind;
    return doc;
  });
}

/** The codes a command can raise: the kit's own and those it declares, in table order. */
export const commandErrors = (command: Command): ErrorCode[] =>
  (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => (KIT_ERROR_CODES as readonly string[]).includes(c) || command.errors.includes(c));

function commandDoc(tool: Tool, command: Command): CommandDoc {
  const input = flagsJsonSchema(command.flags);
  return {
    name: command.name,
    resource: command.resource ?? null,
    verb: command.verb,
    tier: command.tier,
    rw: command.rw,
    summary: command.summary,
    description: command.description ?? null,
    flags: flagDocs(command, input),
    result_schema: command.schema,
    input_schema: input,
    output_schema: resultJsonSchema(command.result),
    errors: commandErrors(command),
    env: [...envOf(tool, command)],
    pagination: command.pagination ? { default_limit: command.pagination.defaultLimit, max_limit: command.pagination.maxLimit } : null,
    stage: command.stage ? { writes: command.stage.writes, reads: [...(command.stage.reads ?? [])] } : null,
    examples: (command.examples ?? []).map((e: Example) => ({ argv: [...e.argv], summary: e.summary })),
  };
}

const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  ok: "success (ok: true)",
  internal: "internal or unexpected failure: report it; maybe retry once",
  usage: "usage error, bad flags or arguments: fix the invocation",
  input: "input or precondition failure, e.g. a missing artifact: fix the input",
  upstream: "an external service failed: retry (retryable: true)",
  policy: "a policy or guardrail refused: do not retry, it needs approval",
  cancelled: "interrupted by SIGINT/SIGTERM",
};

/** The whole tool; `narrowDoc` cuts it to one command. */
export function describeTool(tool: Tool): DescribeDoc {
  const docs = tool.commands.map((c) => commandDoc(tool, c));
  const codes = new Set(docs.flatMap((d) => d.errors));
  return {
    contract_version: tool.contractVersion,
    tool: tool.name,
    version: tool.version,
    purpose: tool.purpose,
    commands: docs,
    universal_flags: UNIVERSAL_FLAGS.map((f) => ({ name: f.name, type: f.kind, description: f.description })),
    env: [...(tool.env ?? [])],
    exit_codes: Object.fromEntries(Object.entries(EXIT).map(([k, v]) => [String(v), EXIT_MEANINGS[k as keyof typeof EXIT]])),
    error_codes: Object.fromEntries(
      (Object.keys(ERROR_CODES) as ErrorCode[])
        .filter((c) => codes.has(c))
        .map((c) => [c, { exit: EXIT[ERROR_CODES[c].exit], retryable: ERROR_CODES[c].retryable, summary: ERROR_CODES[c].summary }]),
    ),
    documents: Object.fromEntries(Object.entries(DOCUMENT_FLAGS).map(([flag, file]) => [file, `${tool.name} ${flag}`])),
    bindings: { mcp: `${tool.name} --mcp [--profile full|read-only] [--toon]` },
    extensions: KIT_EXTENSIONS,
  };
}
