/**
 * contract §9, layer 2: the machine description of a tool, built from its
 * declaration and the JSON Schema the compile step made of each command's
 * schemas. `--help` and SKILL.md are renderings of this same document, so
 * the three views cannot disagree.
 */
import { type FlagSpec, UNIVERSAL_FLAGS } from "../cli/index.ts";
import type { Command, Example, Tool } from "../declare/index.ts";
import { type EnvVar, envOf } from "../identity/index.ts";
import { ERROR_CODES, EXIT, type ErrorCode } from "../output/index.ts";
import {
  DOCUMENT_FLAGS,
  KIT_EXTENSIONS,
  type CommandDoc,
  type DescribeDoc,
  type FlagDoc,
  type JsonSchema,
} from "./describe-doc.ts";
import { EXIT_READINGS } from "./exits.ts";
import { shellLine } from "./shell.ts";

/** A command's schemas as the compile step derived them. */
export interface CommandSchemas {
  /** The flags' JSON Schema with kebab-case names, as published. */
  readonly input: JsonSchema;
  readonly output: JsonSchema;
  readonly specs: readonly FlagSpec[];
}

function flagDocs(s: CommandSchemas): FlagDoc[] {
  const props = (s.input.properties ?? {}) as Record<string, JsonSchema>;
  return s.specs.map((spec) => {
    const p = props[spec.name] ?? {};
    const doc: FlagDoc = {
      name: spec.name,
      type: spec.kind,
      required: spec.required,
      description: (p.description as string | undefined) ?? null,
    };
    if (p.default !== undefined) doc.default = p.default;
    if (spec.enumValues) doc.enum = [...spec.enumValues];
    if (typeof p.minimum === "number") doc.minimum = p.minimum;
    if (typeof p.maximum === "number") doc.maximum = p.maximum;
    if (spec.itemKind) doc.items = spec.itemKind;
    return doc;
  });
}

/** What the kit raises for a credential with a lifetime (identity/credential.ts): a command that holds one can raise them. */
const LIFETIME_CODES: readonly ErrorCode[] = ["CREDENTIAL_EXPIRED", "AUTH_FAILED", "UPSTREAM_ERROR", "NETWORK_ERROR"];

/** The codes a command can raise: the kit's own and those it declares, in table order. */
export const commandErrors = (command: Pick<Command, "errors">, env: readonly EnvVar[] = []): ErrorCode[] => {
  const lifetime = env.some((v) => v.lifetime && v.scope !== "config");
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter(
    (c) => ERROR_CODES[c].kit || command.errors.includes(c) || (lifetime && LIFETIME_CODES.includes(c)),
  );
};

function commandDoc(tool: Tool, command: Command, schemas: CommandSchemas): CommandDoc {
  return {
    name: command.name,
    resource: command.resource ?? null,
    verb: command.verb,
    tier: command.tier,
    rw: command.rw,
    ...(command.person ? { person: true as const } : {}),
    summary: command.summary,
    description: command.description ?? null,
    flags: flagDocs(schemas),
    result_schema: command.schema,
    input_schema: schemas.input,
    output_schema: schemas.output,
    errors: commandErrors(command, envOf(tool, command)),
    env: [...envOf(tool, command)],
    ...(command.maxDuration === undefined ? {} : { max_duration: command.maxDuration }),
    ...(command.secretsOut?.length
      ? { secrets_out: command.secretsOut.map((o) => ({ name: o.name, description: o.description })) }
      : {}),
    ...(command.writes
      ? { writes: { root: command.writes.root, actions: command.writes.actions.map((a) => ({ ...a })) } }
      : {}),
    pagination: command.pagination
      ? { default_limit: command.pagination.defaultLimit, max_limit: command.pagination.maxLimit }
      : null,
    stage: command.stage ? { writes: command.stage.writes, reads: [...(command.stage.reads ?? [])] } : null,
    // command_line: the same example as one line a POSIX shell splits back into argv (shell.ts).
    examples: (command.examples ?? []).map((e: Example) => ({
      argv: [...e.argv],
      summary: e.summary,
      command_line: shellLine([tool.name, ...command.name.split(" "), ...e.argv]),
    })),
  };
}

/** The whole tool; `narrowDoc` cuts it to one command. */
export function describeTool(tool: Tool, schemasOf: (command: Command) => CommandSchemas): DescribeDoc {
  const docs = tool.commands.map((c) => commandDoc(tool, c, schemasOf(c)));
  const codes = new Set(docs.flatMap((d) => d.errors));
  return {
    contract_version: tool.contractVersion,
    tool: tool.name,
    version: tool.version,
    purpose: tool.purpose,
    commands: docs,
    universal_flags: UNIVERSAL_FLAGS.map((f) => ({ name: f.name, type: f.kind, description: f.description })),
    env: [...(tool.env ?? [])],
    exit_codes: Object.fromEntries(
      Object.entries(EXIT).map(([k, v]) => [String(v), EXIT_READINGS[k as keyof typeof EXIT].meaning]),
    ),
    error_codes: Object.fromEntries(
      (Object.keys(ERROR_CODES) as ErrorCode[])
        .filter((c) => codes.has(c))
        .map((c) => [
          c,
          { exit: EXIT[ERROR_CODES[c].exit], retryable: ERROR_CODES[c].retryable, summary: ERROR_CODES[c].summary },
        ]),
    ),
    documents: Object.fromEntries(Object.entries(DOCUMENT_FLAGS).map(([flag, file]) => [file, `${tool.name} ${flag}`])),
    bindings: {
      mcp: `${tool.name} --mcp [--profile ${["full", "read-only", ...(tool.mcpProfiles ?? [])].join("|")}] [--toon]`,
    },
    extensions: KIT_EXTENSIONS,
    ...(tool.launched?.length ? { launched_commands: tool.launched.map((l) => ({ ...l })) } : {}),
  };
}
