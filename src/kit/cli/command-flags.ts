/**
 * contract §3, the parse stage: a command's argv tokens (and its --params
 * document, when given) to the input its validator checks and the universal
 * flags, each read through the universal table.
 */
import { parseFlags, type ArgvFlag, type RawFlags } from "./argv.ts";
import { UNIVERSAL_FLAGS, universalOf, type FlagSpec, type Universal } from "./flags.ts";
import { convertFlags } from "./validate.ts";

export const UNIVERSAL_ARGV: readonly ArgvFlag[] = UNIVERSAL_FLAGS.map((f) => ({
  name: f.name,
  kind: f.kind === "boolean" ? "boolean" : "value",
}));

const argvKind = (s: FlagSpec): ArgvFlag["kind"] =>
  s.kind === "boolean" ? "boolean" : s.kind === "array" ? "repeatable" : "value";

export interface CommandFlags {
  /** The command's own flags, converted by kind and checked against their specs, not yet validated. */
  readonly input: Record<string, unknown>;
  readonly universal: Universal;
}

/** argv's strings, or a --params document's JSON values taken as they are. */
export async function readCommandFlags(
  tokens: readonly string[],
  specs: readonly FlagSpec[],
  usage: string,
  io: { readonly cwd: string; readStdin(): Promise<string> },
): Promise<CommandFlags> {
  const raw: RawFlags = parseFlags(
    tokens,
    [...specs.map((s) => ({ name: s.name, kind: argvKind(s), required: s.required })), ...UNIVERSAL_ARGV],
    usage,
  );
  if (typeof raw.params !== "string") return { input: convertFlags(specs, raw, "argv"), universal: universalOf(raw) };
  const { readParamsDocument, splitParams } = await import("./params.ts");
  const doc = await readParamsDocument(raw.params, io.cwd, io.readStdin);
  const split = splitParams(
    doc,
    specs.map((s) => s.name),
    raw,
  );
  return { input: convertFlags(specs, split.flags, "params"), universal: universalOf({ ...raw, ...split.universal }) };
}
