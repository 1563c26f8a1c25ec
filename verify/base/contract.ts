/**
 * The tool contract as the verifier reads it, written down independently of
 * the kit (contract §1, §3, §5). If the kit and this file disagree, one of
 * them misread the contract, and the verifier says so.
 */
import type { CheckId, Extension } from "./report.ts";

/** contract §1: the closed tier-1 set, with the class each verb must have. */
export const TIER1_VERBS: Readonly<Record<string, "read" | "write">> = {
  get: "read",
  list: "read",
  create: "write",
  update: "write",
  delete: "write",
  plan: "write",
  apply: "write",
};

/** contract §1: never verbs, at any tier. */
export const FORBIDDEN_VERBS = ["info", "ls", "show", "fetch", "rm", "new", "make", "run"] as const;

/** contract §3: every command accepts all of these. */
export const UNIVERSAL_FLAGS = [
  "json",
  "describe",
  "dry-run",
  "fields",
  "limit",
  "force",
  "yes",
  "no-input",
  "wait",
  "run-dir",
] as const;

/**
 * The kit's universal flags beyond the contract's, from the SPEC: each with the
 * extension a tool claims for it (none for --help, on every command) and the
 * check a command that redefines it fails. The one list of them here.
 */
export const KIT_FLAGS: Readonly<Record<string, { readonly extension: Extension | null; readonly check: CheckId }>> = {
  cursor: { extension: "cursor", check: "lists.cursor" },
  params: { extension: "params", check: "flags.params" },
  toon: { extension: "toon", check: "flags.toon" },
  help: { extension: null, check: "flags.universal" },
};

export const KIT_UNIVERSAL_FLAGS: readonly string[] = Object.keys(KIT_FLAGS);

/** contract §5: the exit codes a tool may use. */
export const EXIT_CODES = [0, 1, 2, 3, 4, 5, 130] as const;

/**
 * The exit class of the codes whose meaning the contract and SPEC fix; any
 * other code must keep to the class the tool's --describe gives it.
 */
export const KNOWN_CODE_EXITS: Readonly<Record<string, number>> = {
  INTERNAL: 1,
  USAGE: 2,
  UNKNOWN_COMMAND: 2,
  UNKNOWN_FLAG: 2,
  MISSING_FLAG: 2,
  INVALID_VALUE: 2,
  INVALID_ENUM: 2,
  OUT_OF_RANGE: 2,
  INPUT_REQUIRED: 2,
  MISSING_ARTIFACT: 3,
  CONFIRMATION_REQUIRED: 5,
  APPROVAL_REQUIRED: 5,
  POLICY_DENIED: 5,
  CANCELLED: 130,
};

export const SCREAMING_SNAKE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/** The MCP seed's prohibited credential fields, as flag names. */
export const CREDENTIAL_FLAG =
  /(^|-)(token|tokens|password|passwd|secret|secrets|api-?key|apikey|credentials?|auth|authorization|bearer|cookie|private-key|access-key|session-key)($|-)/;

/** Result schema ids: `tool.command@N` (contract §9). */
export const schemaIdFor = (tool: string, command: string): RegExp =>
  new RegExp(`^${tool.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.${command.replace(/ /g, "\\.")}@[1-9][0-9]*$`);

export const ANSI = /\u001b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/;

/** A JavaScript, Python, Go or Rust stack trace, as lines or escaped inside a JSON string. */
export const STACK_TRACE =
  /^\s+at .+(?::\d+:\d+|\(native\))\)?$|^Traceback \(most recent call last\)|^goroutine \d+ \[|panicked at |\\n\s+at [^"\\]+:\d+:\d+\)?/m;
