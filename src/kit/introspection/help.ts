/**
 * contract §9, layer 1: `--help` for people, rendered from the describe
 * document. Sections are fixed (COMMANDS, FLAGS, UNIVERSAL FLAGS) and every
 * flag line starts with its `--name`, so a machine can hold help and
 * describe side by side and find any difference.
 */
import type { CommandDoc, DescribeDoc, FlagDoc } from "./describe-doc.ts";

const table = (rows: readonly (readonly [string, string])[], below: readonly (readonly string[])[] = []): string => {
  const width = Math.max(0, ...rows.map(([a]) => a.length));
  return rows
    .map(([a, b], i) =>
      [`  ${a.padEnd(width)}  ${b}`.trimEnd(), ...(below[i] ?? []).map((l) => `  ${" ".repeat(width)}  ${l}`)].join(
        "\n",
      ),
    )
    .join("\n");
};

/** Past this, a flag's values leave its usage and go on lines of their own below it. */
const INLINE_VALUES = 40;
/** Help reads well on an 80-column terminal: the value lines end within it. */
const HELP_WIDTH = 80;

/** The values a flag takes, its own or (a repeatable flag's) each item's: from the command's input schema. */
export const flagValues = (f: FlagDoc, c?: CommandDoc): readonly string[] | null => {
  if (f.enum) return f.enum;
  const p = (c?.input_schema.properties as Record<string, { items?: { enum?: unknown[] } }> | undefined)?.[f.name];
  return Array.isArray(p?.items?.enum) ? p.items.enum.map(String) : null;
};

const inline = (values: readonly string[] | null): boolean =>
  values !== null && values.join("|").length <= INLINE_VALUES;

export const flagUsage = (f: FlagDoc, c?: CommandDoc): string => {
  if (f.type === "boolean") return `--${f.name}`;
  const values = flagValues(f, c);
  const value = inline(values)
    ? values!.join("|")
    : f.type === "array"
      ? `${values ? "value" : (f.items ?? "value")}…`
      : values
        ? "value"
        : f.type;
  return `--${f.name} <${value}${f.type === "array" && inline(values) ? "…" : ""}>`;
};

/** A flag's values too long for its usage: "one of:" lines, each within the help's width. */
export function valueLines(f: FlagDoc, c: CommandDoc | undefined, width: number): string[] {
  const values = flagValues(f, c);
  if (!values || inline(values)) return [];
  const lines: string[] = [];
  let line = "one of:";
  for (const v of values) {
    // ", " before the value and the "," that ends a full line
    if (line.length + v.length + 3 > width && line !== "one of:") {
      lines.push(`${line},`);
      line = `  ${v}`;
    } else line = line === "one of:" ? `${line} ${v}` : `${line}, ${v}`;
  }
  return [...lines, line];
}

export const flagNotes = (f: FlagDoc): string => {
  const notes: string[] = [];
  if (f.required) notes.push("required");
  if (f.default !== undefined) notes.push(`default: ${JSON.stringify(f.default)}`);
  if (f.minimum !== undefined || f.maximum !== undefined)
    notes.push(`range: ${f.minimum ?? "-∞"}..${f.maximum ?? "∞"}`);
  if (f.type === "array") notes.push("repeatable");
  return notes.length ? ` (${notes.join("; ")})` : "";
};

export function toolHelp(doc: DescribeDoc): string {
  return [
    `${doc.tool} ${doc.version}: ${doc.purpose}`,
    "",
    "USAGE",
    `  ${doc.tool} <command> [flags]`,
    "",
    "COMMANDS",
    table(doc.commands.map((c) => [c.name, c.summary])),
    "",
    ...(doc.launched_commands?.length
      ? ["OTHER COMMANDS", table(doc.launched_commands.map((l) => [l.usage, l.summary])), ""]
      : []),
    "UNIVERSAL FLAGS",
    table(doc.universal_flags.map((f) => [`--${f.name}`, f.description])),
    "",
    `Run \`${doc.tool} <command> --help\` for a command's flags, \`${doc.tool} --describe\` for the machine-readable form, \`${doc.tool} --version\` for its version and the kit's${
      Object.keys(doc.documents ?? {}).length
        ? `, ${Object.entries(doc.documents)
            .map(([file, how]) => `\`${how}\` for ${file}`)
            .join(", ")}`
        : ""
    }.`,
    "",
  ].join("\n");
}

/**
 * What a command does to the world, honestly by its verb (contract §1, §8): a write CRUD verb or
 * `plan` only writes a plan; `apply` carries an approved one out; a tier-2 write acts directly.
 */
const writes = (c: CommandDoc): string =>
  c.rw === "read"
    ? "Reads only"
    : c.verb === "apply"
      ? "Writes: carries out an approved plan"
      : c.tier === 1
        ? "Writes only a plan (apply carries it out)"
        : "Writes directly, not through a plan";

/** A command's flags: usage, description and notes, and long value lists below, within HELP_WIDTH. */
function flagTable(c: CommandDoc): string {
  const usages = c.flags.map((f) => flagUsage(f, c));
  const room = Math.max(30, HELP_WIDTH - 4 - Math.max(...usages.map((u) => u.length)));
  return table(
    c.flags.map((f, i) => [usages[i]!, `${f.description ?? ""}${flagNotes(f)}`]),
    c.flags.map((f) => valueLines(f, c, room)),
  );
}

export function commandHelp(doc: DescribeDoc, c: CommandDoc): string {
  const lines = [
    `${doc.tool} ${c.name}: ${c.summary}`,
    "",
    "USAGE",
    `  ${doc.tool} ${c.name} [flags]`,
    "",
    `  ${writes(c)}; tier-${c.tier} verb; result schema ${c.result_schema}.`,
    ...(c.person
      ? ["  A person's act: offered at the command line only, never over MCP, as a declared tool or as a job step."]
      : []),
  ];
  if (c.description) lines.push("", ...c.description.split("\n").map((l) => `  ${l}`.trimEnd()));
  lines.push("", "FLAGS", c.flags.length ? flagTable(c) : "  (none beyond the universal flags)");
  lines.push("", "UNIVERSAL FLAGS", table(doc.universal_flags.map((f) => [`--${f.name}`, f.description])));
  if (c.pagination)
    lines.push(
      "",
      `Lists ${c.pagination.default_limit} items unless --limit says otherwise (at most ${c.pagination.max_limit}); follow meta.pagination.next_cursor with --cursor.`,
    );
  if (c.env.length)
    lines.push(
      "",
      "ENVIRONMENT",
      table(c.env.map((e) => [e.name, `${e.description} (${e.scope}${e.required ? ", required" : ""})`])),
    );
  if (c.examples.length)
    lines.push("", "EXAMPLES", ...c.examples.map((e) => `  ${e.command_line}\n      ${e.summary}`));
  lines.push(
    "",
    "ERRORS",
    table(
      c.errors.map((code) => [code, `exit ${doc.error_codes[code]?.exit}: ${doc.error_codes[code]?.summary ?? ""}`]),
    ),
    "",
  );
  return lines.join("\n");
}
