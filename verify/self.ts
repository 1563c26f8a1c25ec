/**
 * verify obeys the contract it checks: this table of its one command's flags
 * is the single source of its argv parsing, `--help`, `--describe`, its
 * SKILL.md (`--skill`) and its spec (`--spec`). Written here, not taken from
 * the kit: the verifier shares no code with what it verifies.
 */
import pkg from "../package.json" with { type: "json" };

/** The package's version: the kit and its verifier are released together, as one. */
export const VERSION: string = pkg.version;
const PURPOSE = "Prove, black-box, that compiled command-line tools obey the tool contract (contract_version 0).";

export interface VerifyFlag {
  readonly name: string;
  readonly type: "string" | "integer" | "boolean" | "array";
  readonly description: string;
  readonly minimum?: number;
}

/** The command's own flags (the binaries may also be given as arguments). */
export const FLAGS: readonly VerifyFlag[] = [
  {
    name: "binary",
    type: "array",
    description: "A tool binary to verify; repeatable. Binaries may also be given as arguments.",
  },
  {
    name: "strict",
    type: "boolean",
    description:
      "Every check proven at the level the tool claims (the contract, and the kit extensions it claims): a list check no data proved fails instead of being skipped as not proven.",
  },
  {
    name: "all-extensions",
    type: "boolean",
    description:
      "Demand every kit extension (the describe fields, per-command describe, --cursor, --params, --toon, hints, the kit's error codes, help and SKILL.md layout, examples that run as printed), claimed or not.",
  },
  {
    name: "golden",
    type: "string",
    description: "Replay the golden cases under DIR/<tool>/ (default: ./test/golden when present).",
  },
  { name: "no-golden", type: "boolean", description: "Do not replay golden cases." },
  {
    name: "update",
    type: "boolean",
    description: "Re-record every golden case's expectation (and create missing ones).",
  },
  { name: "fuzz", type: "integer", minimum: 0, description: "N randomized invocations per command (default 0: off)." },
  { name: "seed", type: "integer", minimum: 0, description: "Seed for --fuzz, so a failure replays (default 1)." },
  {
    name: "timeout",
    type: "integer",
    minimum: 100,
    description:
      "Kill a run that takes longer, in ms, and call it a hang (default 10000; after two hangs a tool's probes get 500).",
  },
  {
    name: "concurrency",
    type: "integer",
    minimum: 1,
    description:
      "Runs in flight at once (default: VERIFY_CONCURRENCY, else twice the cores; 1 runs them one at a time, fuzzed runs last).",
  },
  {
    name: "share",
    type: "string",
    description:
      "Read <tool>/SKILL.md and <tool>/spec.yaml from DIR (default: what the tool prints, the tool repo's root, or share/<tool>/ beside the binary).",
  },
  {
    name: "gate",
    type: "string",
    description:
      "The gate, to approve the tool's own plans and for golden cases that drive it (default: beside the tool's binary, beside verify's, else on PATH).",
  },
  {
    name: "baseline",
    type: "string",
    description:
      'Expected failures, {"<tool>": ["check.id", …]}: listed failures pass, a listed check that passes fails (stale).',
  },
  { name: "junit", type: "string", description: "Also write the report as JUnit XML to FILE." },
];

/** The contract's universal flags (§3): all accepted; those with no meaning for verify change nothing. */
export const UNIVERSAL: readonly { name: string; value: boolean; description: string }[] = [
  { name: "json", value: false, description: "Print the result envelope (the default when stdout is not a terminal)." },
  { name: "describe", value: false, description: "Print the machine-readable description and exit 0." },
  { name: "help", value: false, description: "Print this help and exit 0." },
  {
    name: "dry-run",
    value: false,
    description: "Check, but write nothing: no re-recorded golden case, no JUnit file.",
  },
  {
    name: "fields",
    value: true,
    description: "Project the result's data to these comma-separated top-level keys (summary, tools).",
  },
  { name: "limit", value: true, description: "Accepted; verify returns no list to bound." },
  { name: "force", value: false, description: "Accepted; verify asks for no confirmation." },
  { name: "yes", value: false, description: "Accepted; verify asks for no confirmation." },
  { name: "no-input", value: false, description: "Accepted; verify never prompts." },
  { name: "wait", value: false, description: "Accepted; verify always waits for its runs." },
  { name: "run-dir", value: true, description: "Accepted; verify keeps its scratch in a sandbox of its own." },
];

export const COMMAND = "audit";
export const RESULT_SCHEMA = "verify.audit@1";

export function describeDoc(): Record<string, unknown> {
  return {
    contract_version: 0,
    tool: "verify",
    version: VERSION,
    purpose: PURPOSE,
    commands: [
      {
        name: COMMAND,
        verb: COMMAND,
        tier: 2,
        rw: "read",
        summary: "Verify tool binaries against the contract: every check, with the evidence behind each failure.",
        flags: FLAGS.map((f) => ({
          name: f.name,
          type: f.type,
          required: false,
          description: f.description,
          ...(f.minimum !== undefined ? { minimum: f.minimum } : {}),
        })),
        result_schema: RESULT_SCHEMA,
      },
    ],
    documents: { "SKILL.md": "verify --skill", "spec.yaml": "verify --spec" },
  };
}

export function helpText(): string {
  const rows = (list: readonly { name: string; description: string }[]) =>
    list.map((f) => `  --${f.name.padEnd(16)} ${f.description}`).join("\n");
  return `verify ${VERSION}: ${PURPOSE}

USAGE
  verify ${COMMAND} [flags] <tool-binary>…     (also: verify [flags] <tool-binary>…)

COMMANDS
  ${COMMAND}    verify tool binaries against the contract

FLAGS
${rows(FLAGS)}

UNIVERSAL FLAGS
${rows(UNIVERSAL)}

EXIT CODES
  0    every tool conforms
  2    usage error, or a binary that cannot be run (USAGE, NOT_EXECUTABLE)
  3    a tool does not conform (NONCONFORMING; the report is in error.detail)
  1    the verifier itself failed (INTERNAL)
  130  interrupted (CANCELLED)

With CI set, a golden case without a recorded expectation fails instead of being recorded.
\`verify --describe\` is the machine-readable form; \`verify --skill\` and \`verify --spec\` print its SKILL.md and spec.yaml.
`;
}

export function skillText(): string {
  return `---
name: verify
description: ${JSON.stringify(PURPOSE)}
---

# verify ${VERSION}

${PURPOSE} Obeys that contract itself: pass \`--json\`; branch on \`error.code\` (USAGE and NOT_EXECUTABLE exit 2, NONCONFORMING exit 3).

## \`verify ${COMMAND}\`

Runs every check of the contract on each binary, and the kit's extensions where a tool claims them (all of them with --all-extensions); with --strict, every check at that level must be proven. The report is \`data\` (or \`error.detail\` when a tool does not conform): per tool, each check's status, what it enforces, and the evidence behind a failure.

${FLAGS.map((f) => `- \`--${f.name}\` (${f.type}): ${f.description}`).join("\n")}
`;
}

export const SPEC = `# verify's identity; its --describe must agree.
name: verify
version: ${VERSION}
contract_version: 0
purpose: ${PURPOSE}
`;
