/**
 * The catalogue of checks: each with what it enforces, a section of the
 * contract or a kit extension (or the verifier's own replay), said in its title.
 */
/**
 * The kit's extensions of the contract. A tool claims the ones it implements
 * in its --describe (`"extensions": [...]`); verify checks a claimed one, or
 * all of them under --strict, and reports the rest as skipped.
 */
export const EXTENSIONS = {
  "describe-schema":
    "--describe also carries version, universal_flags, error_codes, and per command input_schema/output_schema (JSON Schema 2020-12), errors, env and pagination",
  "per-command-describe": "`<command> --describe` describes that command alone",
  cursor: "--cursor continues a list from meta.pagination.next_cursor",
  params: "--params FILE|- takes the command's flags as one JSON object",
  toon: "--toon prints the envelope encoded as TOON",
  hint: "error.hint names the next step; for a forbidden synonym, the canonical verb",
  "error-codes":
    "usage errors use the kit's codes (UNKNOWN_COMMAND, UNKNOWN_FLAG, MISSING_FLAG, INVALID_VALUE, INVALID_ENUM) and list what is valid in allowed",
  "help-layout": "--help is laid out in sections: COMMANDS, FLAGS, UNIVERSAL FLAGS",
  "skill-layout": "SKILL.md has a `### `tool command`` heading per command and a `| `--flag` |` row per flag",
  version:
    "`<tool> --version` prints one line naming the tool and the version --describe gives; with --json, an envelope whose data.version is that version",
  examples:
    "--describe lists each command's examples ({ argv, summary, command_line }); --help (EXAMPLES) and SKILL.md (```sh blocks) print each as its command_line",
} as const;
export type Extension = keyof typeof EXTENSIONS;

/** Kit additions rather than readings of the contract: held only where claimed, never demanded by --strict. */
export const CLAIMED_ONLY: ReadonlySet<Extension> = new Set<Extension>(["version"]);

/** What a check enforces: a section of the contract, a kit extension, or the verifier's own replay. */
type Level = { readonly contract: string } | { readonly extension: Extension } | { readonly verifier: string };

const c = (section: string, title: string) => ({ title, level: { contract: section } as Level });
const x = (extension: Extension, title: string) => ({ title, level: { extension } as Level });

export const CHECKS = {
  "describe.shape": c(
    "§9",
    "--describe prints the bare document of the contract's shape: contract_version, tool, commands with name, verb, tier, rw, flags (name, type, required), result_schema",
  ),
  "describe.kit-fields": x("describe-schema", "--describe carries the kit's fields, every universal flag listed"),
  "describe.per-command": x(
    "per-command-describe",
    "`<command> --describe` describes that command alone, as the tool's document does",
  ),
  "describe.contract-version": c("§9, Versioning", "contract_version agrees with the tool's spec.yaml"),
  "describe.verbs": c(
    "§1",
    "every verb is tier 1 or a declared tier-2 verb, never a forbidden synonym, with the right read/write class",
  ),
  "describe.json-schema": x(
    "describe-schema",
    "every command's flags and result carry valid JSON Schema 2020-12 that agrees with its flag list",
  ),
  "describe.required": c(
    "§9",
    "a flag --describe declares optional is not required: the command's required flags alone are not refused for want of it",
  ),
  "describe.schema-ids": c("§9", "result schema ids are tool.command@N"),
  "introspection.help": c(
    "§9",
    "--help exits 0 and names every command, and every flag of a command, that --describe lists",
  ),
  "introspection.help-layout": x(
    "help-layout",
    "--help's COMMANDS, FLAGS and UNIVERSAL FLAGS sections list exactly what --describe lists",
  ),
  "introspection.skill": c("§9", "SKILL.md names every command and every flag --describe lists"),
  "introspection.skill-layout": x(
    "skill-layout",
    "SKILL.md's command headings and flag rows are exactly what --describe lists",
  ),
  "flags.universal": c("§3", "every command accepts every universal flag of the contract (and --cursor where claimed)"),
  "introspection.version": x(
    "version",
    "`<tool> --version` prints one line starting with the tool's name and its --describe version; `--version --json` answers ok with data.version the same (checked only where a tool claims it: a kit addition, not demanded even under --strict)",
  ),
  "flags.params": x("params", "--params FILE is accepted by every command and read like the command line"),
  "flags.toon": x("toon", "--toon prints TOON that decodes to the same envelope"),
  "output.one-json": c("§2, §5", "stdout is exactly one JSON object (in any layout), and nothing else"),
  "output.no-ansi": c("§3", "no ANSI escape sequences on stdout or stderr off a terminal"),
  "output.no-stack": c("§5", "no stack trace on stdout"),
  "output.bounded": c(
    "§6",
    "no answer of a command (but a `list`, which lists.bounded holds), reads and writes alike (plan, review, apply), holds an array in data longer than its declared default limit, else the kit's default of 50 (or a --limit that widens it): an unbounded result blows the specialist's context window",
  ),
  "output.limit-honoured": c(
    "§6",
    "--limit 1 added to a command whose answer holds an array longer than 1 is honoured (no array in data longer than 1) or refused as a usage error (exit 2), never silently ignored",
  ),
  "output.fields-shape": c(
    "§3",
    "--fields a or a.b projects data to exactly that path, nested paths too, and never changes the envelope's shape",
  ),
  "envelope.shape": c(
    "§2, §11",
    "every envelope has exactly the contract's fields, meta typed and carrying the outcome sub-object",
  ),
  "envelope.ok-iff": c("§2", "ok is true exactly when data is an object and error is null"),
  "envelope.result-schema": c(
    "§2, §9",
    "meta.schema names the command's result schema, and data validates against its output schema where --describe carries one",
  ),
  "errors.exit-class": c(
    "§5",
    "every error code exits with its class (one exit per code, never 0; the class --describe's error_codes gives, where it does), and success exits 0",
  ),
  "errors.code-format": c("§4", "error codes are SCREAMING_SNAKE"),
  "errors.retryable": c("§4", "usage errors (exit 2) and policy rejections (exit 5) say retryable: false"),
  "errors.declared": x(
    "describe-schema",
    "every error code is in --describe's error_codes and among the codes its command declares (an INTERNAL naming an undeclared code in detail.undeclared counts as that code)",
  ),
  "errors.unknown-flag": c("§4, §5", "an unknown flag: exit 2 with an error"),
  "errors.unknown-command": c("§1, §5", "an unknown command or forbidden synonym: exit 2 with an error"),
  "errors.required": c("§4, §5", "a missing required flag: exit 2, the message naming it"),
  "errors.type": c("§4, §5", "a wrongly typed value: exit 2, the message naming the flag"),
  "errors.enum": c(
    "§4",
    "a value outside an enum (its values from --describe, else from the error a bad value gets): exit 2, allowed and got, a message listing the values, and a listed value accepted",
  ),
  "errors.range": c(
    "§4",
    "a value out of range (below a flag's minimum, above its maximum, --limit 0): exit 2, with allowed and got",
  ),
  "errors.kit-codes": x(
    "error-codes",
    "usage errors carry the kit's codes, and allowed lists the valid flags or commands",
  ),
  "errors.hint": x("hint", "a forbidden synonym's hint names the canonical verb"),
  "examples.run": x(
    "examples",
    "every example --describe lists runs (a write with --dry-run added) and is not refused: no usage error, and an exit only a code the command declares gives",
  ),
  "examples.quoting": x(
    "examples",
    "every example's printed line (describe's command_line, --help's EXAMPLES, SKILL.md's ```sh block) splits, as a POSIX shell splits it, into exactly the tool, the command and the example's argv",
  ),
  "lists.bounded": c("§6", "a list without --limit is bounded (at most its declared default) and sets meta.pagination"),
  "lists.truncation": c(
    "§6",
    "a cut list sets truncated and a truncation_hint naming a flag; a page holding the whole list says nothing is left",
  ),
  "lists.cursor": x("cursor", "following next_cursor to the end returns every item exactly once"),
  "lists.limit-zero": c("§6", "--limit 0 or below is a usage error, never 'unbounded' nor a count from the end"),
  "noninteractive.no-hang": c(
    "§3",
    "with stdin a pipe no one answers: nothing hangs, nothing reads stdin under --no-input, and nothing is left running once the tool exits",
  ),
  "noninteractive.tty": c(
    "§3",
    "on a terminal (stdin and stderr a pseudo-terminal) under --no-input: nothing reads the terminal or waits on it",
  ),
  "identity.canary": c("§10", "canary secrets in the environment never appear on stdout, stderr or in written files"),
  "identity.home": c("§10", "a throwaway HOME stays empty"),
  "identity.credential-flags": c("§10", "no flag has a credential-shaped name"),
  "identity.secrets-out": c(
    "§10",
    "a register-once secret appears only in meta.secrets_out, and only on a command whose --describe declares it there (secrets_out), under the names declared",
  ),
  "identity.env-declared": x(
    "describe-schema",
    "every environment variable a command asks for is declared in --describe",
  ),
  "fs.read-only": c(
    "§1",
    "read commands leave the files they are given, their working folder and HOME untouched (run from golden cases and from the tool's examples)",
  ),
  "fs.dry-run": c(
    "§3",
    "a write command's --dry-run changes nothing: no file in its working folder, HOME or inputs (run from golden cases and from the tool's examples, with a plan made by its own plan examples)",
  ),
  "fs.plan": c(
    "§8",
    "plan, run for real from its examples before an apply, writes only its changeset (the file apply's examples take, else a JSON file) and its scratch (TMPDIR, run dir): it changes nothing else",
  ),
  "net.read-only": c(
    "§1",
    "a read command sends its declared upstream (a listener verify runs on 127.0.0.1) no PUT, PATCH or DELETE, nor a request marked Idempotency-Key; a query by POST is a read",
  ),
  "net.dry-run": c(
    "§3",
    "a write command's --dry-run sends its declared upstream (a listener verify runs on 127.0.0.1) only GET, HEAD, OPTIONS or TRACE, none marked Idempotency-Key",
  ),
  "plans.reapply": c(
    "§8",
    "a plan the tool made, approved and applied, applied again executes nothing and says so per item (executed: false)",
  ),
  "plans.expiry": c("§8", "an approved plan applied after its expiry is refused (exit 3 or 5) and executes nothing"),
  "plans.checksum": c(
    "§8",
    "an approved plan with one byte of plan.json changed since is refused (exit 3 or 5) and executes nothing",
  ),
  "golden.siblings": {
    title: "golden cases that drive another fleet tool (the gate) find it: --gate PATH, beside the binary, or on PATH",
    level: { verifier: "golden cases" } as Level,
  },
  golden: {
    title: "recorded golden cases replay with the same exit code and output",
    level: { verifier: "golden cases" } as Level,
  },
  fuzz: c(
    "§4, §5",
    "randomized argv and params: one valid envelope, an agreeing exit, no stack trace, no hang, never INTERNAL",
  ),
} as const;

/** A check's title with what it enforces: "contract §6: …", "kit extension cursor: …". */
export const titleOf = (id: CheckId): string => {
  const { title, level } = CHECKS[id];
  const by =
    "contract" in level
      ? `contract ${level.contract}`
      : "extension" in level
        ? `kit extension ${level.extension}`
        : level.verifier;
  return `${by}: ${title}`;
};

export const extensionOf = (id: CheckId): Extension | null => {
  const level = CHECKS[id].level;
  return "extension" in level ? level.extension : null;
};

export type CheckId = keyof typeof CHECKS;
