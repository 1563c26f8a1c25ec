/**
 * The describe document's shape (contract §9), and the cut of it that
 * `<tool> <command> --describe` prints. Free of zod: a compiled tool prints
 * a document the build made, without building a schema.
 */
import { type FlagKind, UNIVERSAL_FLAGS } from "../cli/index.ts";
import type { EnvVar } from "../identity/index.ts";
import type { ErrorCode } from "../output/index.ts";

export type JsonSchema = Record<string, unknown>;

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
  /** Present (true) on a person's act: only the command line offers it, never MCP, the manifest or a job. */
  person?: true;
  summary: string;
  description: string | null;
  flags: FlagDoc[];
  result_schema: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  errors: ErrorCode[];
  env: EnvVar[];
  /** The longest the command may run, in seconds: a credential that dies sooner with no refresh path fails it at start (CREDENTIAL_EXPIRED). */
  max_duration?: number;
  /** Register-once secrets it may return in meta.secrets_out, each by the variable name a later job receives it as (contract §10). */
  secrets_out?: { name: string; description: string }[];
  /** On a mutating tool's `apply` and `target list`: the plan context field naming where a plan acts, and each action with what it may change (contract §8). */
  writes?: { root: string | null; actions: { name: string; may: string }[] };
  pagination: { default_limit: number; max_limit: number } | null;
  stage: { writes: string; reads: string[] } | null;
  /** command_line: tool, command and argv as one POSIX-shell-quoted line that runs when pasted. */
  examples: { argv: string[]; summary: string; command_line: string }[];
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
  /** The documents the binary carries, and the tool-level flag that prints each (`seo --skill`). */
  documents: Record<string, string>;
  /** Other doors to the same commands: how to start each (an MCP server over stdio). */
  bindings: Record<string, string>;
  /** The extensions of the contract this tool implements, so a verifier holds it to them (every kit tool: all). */
  extensions: readonly string[];
  /** Commands its launcher runs outside the kit (the author tool's `verify`), each with its usage; absent when none. */
  launched_commands?: readonly { name: string; summary: string; usage: string }[];
}

/** What the kit adds to the contract, by the names the verifier knows them by; a universal flag's comes from the flag table. */
export const KIT_EXTENSIONS: readonly string[] = [
  "version",
  "describe-schema",
  "per-command-describe",
  ...UNIVERSAL_FLAGS.flatMap((f) => (f.extension ? [f.extension] : [])),
  "hint",
  "error-codes",
  "help-layout",
  "skill-layout",
  "examples",
];

export { DOCUMENT_FLAGS, type DocumentFlag } from "../base/index.ts";

/** The document of one command: that command, and only the error codes it can raise. */
export function narrowDoc(doc: DescribeDoc, commandName: string): DescribeDoc {
  const commands = doc.commands.filter((c) => c.name === commandName);
  const codes = new Set(commands.flatMap((c) => c.errors));
  return {
    ...doc,
    commands,
    error_codes: Object.fromEntries(Object.entries(doc.error_codes).filter(([code]) => codes.has(code as ErrorCode))),
  };
}
