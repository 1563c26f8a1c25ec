/**
 * contract §3 and the SPEC's extensions: the universal flags, each written
 * once. The `Universal` type, parsing (argv and --params), the command's
 * context, the declared-tools manifest and MCP input, --describe, --help and
 * SKILL.md are all derived from this table (cli/flags.ts); adding a flag is
 * a row here plus whatever acts on it.
 */

/** What a list command's input says of its bounds (the describe document's `pagination`). */
export interface ListBoundsDoc {
  readonly default_limit: number;
  readonly max_limit: number;
}

export interface UniversalFlag {
  readonly name: string;
  readonly kind: "boolean" | "string" | "integer";
  readonly description: string;
  /** The field of `Universal` it sets (camelCase); `--yes` sets the same one as `--force`. */
  readonly key: string;
  /** May appear in a --params document (values, not switches about output). */
  readonly inParams: boolean;
  /** Read before argv is parsed, because it decides how even a parse failure is answered. */
  readonly early?: boolean;
  readonly alias?: string;
  /** A command reads its value off its context (`ctx.dryRun`). */
  readonly context?: boolean;
  /** The kit extension it belongs to, claimed in --describe's `extensions`. */
  readonly extension?: string;
  /**
   * Its property in a declared tool's input schema (the manifest, MCP's
   * tools/list), given the command's list bounds; null where that door does
   * not offer it. Only a flag a --params document may carry can have one.
   */
  readonly declared?: (list: ListBoundsDoc | null) => Record<string, unknown> | null;
}

const TABLE = [
  {
    name: "json",
    key: "json",
    kind: "boolean",
    inParams: false,
    early: true,
    description: "Print the result envelope as one JSON object (the default when stdout is not a terminal).",
  },
  {
    name: "describe",
    key: "describe",
    kind: "boolean",
    inParams: false,
    early: true,
    description: "Print the machine-readable description of the tool or command and exit 0.",
  },
  {
    name: "help",
    key: "help",
    kind: "boolean",
    inParams: false,
    early: true,
    alias: "-h",
    description: "Print human help and exit 0.",
  },
  {
    name: "dry-run",
    key: "dryRun",
    kind: "boolean",
    inParams: true,
    context: true,
    description: "Do everything except the side effect; report what would happen.",
  },
  {
    name: "fields",
    key: "fields",
    kind: "string",
    inParams: true,
    description: "Project the result's data to these comma-separated paths, e.g. items.url,total.",
  },
  {
    name: "limit",
    key: "limit",
    kind: "integer",
    inParams: true,
    description: "Bound a list; every list has a default, and 0 is not 'unbounded'.",
    declared: (list) =>
      list && {
        type: "integer",
        minimum: 1,
        maximum: list.max_limit,
        description: `How many items (default ${list.default_limit}).`,
      },
  },
  {
    name: "cursor",
    key: "cursor",
    kind: "string",
    inParams: true,
    extension: "cursor",
    description: "Continue a list from the next_cursor of the previous page.",
    declared: (list) =>
      list && {
        type: "string",
        description: "meta.pagination.next_cursor of the previous page, with the same other input.",
      },
  },
  {
    name: "force",
    key: "force",
    kind: "boolean",
    inParams: true,
    context: true,
    description: "Proceed past a confirmation a human would be asked for (never past a policy gate).",
  },
  { name: "yes", key: "force", kind: "boolean", inParams: true, description: "The same as --force." },
  {
    name: "no-input",
    key: "noInput",
    kind: "boolean",
    inParams: false,
    description: "Never prompt: a prompt becomes an error instead of a wait.",
  },
  {
    name: "wait",
    key: "wait",
    kind: "boolean",
    inParams: true,
    context: true,
    description: "Block until a slow external operation settles instead of returning a pending handle.",
  },
  {
    name: "run-dir",
    key: "runDir",
    kind: "string",
    inParams: true,
    description: "Folder where pipeline artifacts are read and written (default: a fresh temporary folder).",
    declared: () => ({
      type: "string",
      description: "The run dir: where pipeline artifacts are read and written (default: a fresh temporary one).",
    }),
  },
  {
    name: "params",
    key: "params",
    kind: "string",
    inParams: false,
    extension: "params",
    description: "Read the command's flags as one JSON object from FILE, or from stdin with '-'.",
  },
  {
    name: "toon",
    key: "toon",
    kind: "boolean",
    inParams: false,
    early: true,
    extension: "toon",
    description: "Print the same envelope encoded as TOON instead of JSON.",
  },
] as const satisfies readonly UniversalFlag[];

/** One row, with its literal key, kind and markers: what the derived types are made of. */
export type UniversalRow = (typeof TABLE)[number];

/** No command may redefine one. */
export const UNIVERSAL_FLAGS: readonly UniversalFlag[] = TABLE;
