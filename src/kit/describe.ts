/**
 * contract §9, layer 2: the machine description of a tool, built from the
 * zod definitions alone. `--help` and SKILL.md are renderings of this same
 * document, so the three views cannot disagree. Loaded only on demand: the
 * JSON Schema it carries is not needed to run a command.
 */
import * as z from "zod/mini";
import { envOf, type Command, type EnvVar, type Example, type FlagsSchema, type ResultSchema, type Tool } from "./define.ts";
import { ERROR_CODES, EXIT, KIT_ERROR_CODES, type ErrorCode } from "./errors.ts";
import { flagSpecsOf, kebab, UNIVERSAL_FLAGS, type FlagKind } from "./flags.ts";

type JsonSchema = Record<string, unknown>;

export interface FlagDoc {
  name: string;
  type: FlagKind;
  required: boolean;
  description: string | null;
  default?: unknown;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  items?: FlagKind;
}

export interface CommandDoc {
  name: string;
  resource: string | null;
  verb: string;
  tier: 1 | 2;
  rw: "read" | "write";
  summary: string;
  description: string | null;
  flags: FlagDoc[];
  result_schema: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  errors: ErrorCode[];
  env: EnvVar[];
  pagination: { default_limit: number; max_limit: number } | null;
  stage: { writes: string; reads: string[] } | null;
  examples: { argv: string[]; summary: string }[];
}

export interface DescribeDoc {
  contract_version: number;
  tool: string;
  version: string;
  purpose: string;
  commands: CommandDoc[];
  universal_flags: { name: string; type: string; description: string }[];
  env: EnvVar[];
  exit_codes: Record<string, string>;
  error_codes: Record<string, { exit: number; retryable: boolean; summary: string }>;
}

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

/** The whole tool, or only the named commands (for `<tool> <command> --describe`). */
export function describeTool(tool: Tool, only?: Command): DescribeDoc {
  const commands = only ? [only] : tool.commands;
  const docs = commands.map((c) => commandDoc(tool, c));
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
  };
}
