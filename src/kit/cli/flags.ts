/**
 * Flags: the universal set every command accepts (contract §3 plus the SPEC's
 * extensions), and the shape of a command's own flags as the compile step
 * reads them off the flags' JSON Schema.
 */

export type FlagKind = "string" | "number" | "integer" | "boolean" | "enum" | "array";

export interface FlagSpec {
  /** The key as declared (camelCase) and in the parsed flags `run` receives. */
  readonly key: string;
  /** The flag as written on the command line and in --params: kebab-case. */
  readonly name: string;
  readonly kind: FlagKind;
  readonly required: boolean;
  /** The schema supplies a value when the flag is absent. */
  readonly defaulted: boolean;
  readonly enumValues?: readonly string[];
  /** For arrays: the kind of each element. */
  readonly itemKind?: FlagKind;
}

/** The universal switches and values as the stages read them, whatever door they came through (argv or --params). */
export interface Universal {
  json: boolean;
  describe: boolean;
  help: boolean;
  dryRun: boolean;
  fields?: string;
  limit?: string;
  cursor?: string;
  force: boolean;
  noInput: boolean;
  wait: boolean;
  runDir?: string;
  params?: string;
  toon: boolean;
}

export interface UniversalFlag {
  readonly name: string;
  readonly kind: "boolean" | "string" | "integer";
  readonly description: string;
  /** The field of `Universal` it sets; `--yes` sets the same one as `--force`. */
  readonly key: keyof Universal;
  /** May appear in a --params document (values, not switches about output). */
  readonly inParams: boolean;
  /** Read before argv is parsed, because it decides how even a parse failure is answered. */
  readonly early?: boolean;
  readonly alias?: string;
}

/** contract §3 and the SPEC's extensions; no command may redefine one. */
export const UNIVERSAL_FLAGS: readonly UniversalFlag[] = [
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
  },
  {
    name: "cursor",
    key: "cursor",
    kind: "string",
    inParams: true,
    description: "Continue a list from the next_cursor of the previous page.",
  },
  {
    name: "force",
    key: "force",
    kind: "boolean",
    inParams: true,
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
    description: "Block until a slow external operation settles instead of returning a pending handle.",
  },
  {
    name: "run-dir",
    key: "runDir",
    kind: "string",
    inParams: true,
    description: "Folder where pipeline artifacts are read and written (default: a fresh temporary folder).",
  },
  {
    name: "params",
    key: "params",
    kind: "string",
    inParams: false,
    description: "Read the command's flags as one JSON object from FILE, or from stdin with '-'.",
  },
  {
    name: "toon",
    key: "toon",
    kind: "boolean",
    inParams: false,
    early: true,
    description: "Print the same envelope encoded as TOON instead of JSON.",
  },
];

const NO_UNIVERSAL: Universal = {
  json: false,
  describe: false,
  help: false,
  dryRun: false,
  force: false,
  noInput: false,
  wait: false,
  toon: false,
};

/** The universal flags in parsed flags (argv's, or merged with a --params document's), by the table. */
export function universalOf(raw: Readonly<Record<string, unknown>>): Universal {
  const u: Record<string, unknown> = { ...NO_UNIVERSAL };
  for (const f of UNIVERSAL_FLAGS) {
    const v = raw[f.name];
    if (f.kind === "boolean") u[f.key] = u[f.key] === true || v === true;
    else if (typeof v === "string") u[f.key] = v;
  }
  return u as unknown as Universal;
}

/**
 * The early flags, read off argv before it is parsed (a parse failure is
 * still answered in the encoding asked for). Only whole tokens count.
 */
export function earlyUniversal(argv: readonly string[]): Pick<Universal, "json" | "toon" | "describe" | "help"> {
  const has = (f: UniversalFlag) => argv.includes(`--${f.name}`) || (f.alias !== undefined && argv.includes(f.alias));
  const u = { json: false, toon: false, describe: false, help: false };
  for (const f of UNIVERSAL_FLAGS) if (f.early) u[f.key as keyof typeof u] = has(f);
  return u;
}

export const UNIVERSAL_FLAG_NAMES: ReadonlySet<string> = new Set(UNIVERSAL_FLAGS.map((f) => f.name));

export const kebab = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
