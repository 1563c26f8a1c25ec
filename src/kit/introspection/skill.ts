/**
 * contract §9, layer 3: SKILL.md, prose for a model, rendered from the same
 * describe document as --help. Every command is a `### \`tool command\``
 * heading and every flag a table row starting with its `--name`, so the
 * verifier can hold it against --describe.
 */
import { FORBIDDEN_SYNONYMS, TIER1_VERBS } from "../base/index.ts";
import { KIT_DEFAULT_LIMIT } from "../lists/index.ts";
import { EXIT, type ExitClass } from "../output/index.ts";
import type { DescribeDoc } from "./describe-doc.ts";
import { EXIT_READINGS } from "./exits.ts";
import { flagNotes, flagValues } from "./help.ts";

const cell = (s: string): string => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (word: string): string => `\`${word}\``;
const oneOf = (words: readonly string[]): string =>
  `${words.slice(0, -1).map(code).join(", ")} or ${code(words[words.length - 1]!)}`;

export function toolSkill(doc: DescribeDoc): string {
  const out: string[] = [
    "---",
    `name: ${doc.tool}`,
    `description: ${JSON.stringify(doc.purpose)}`,
    "---",
    "",
    `# ${doc.tool} ${doc.version}`,
    "",
    doc.purpose,
    "",
    `Obeys the fleet's tool contract (contract_version ${doc.contract_version}): see the fleet skill for the envelope, exit codes and universal flags. Always pass \`--json\`; branch on \`error.code\`.`,
    "",
  ];
  const carried = Object.entries(doc.documents ?? {});
  if (carried.length)
    out.push(
      `The binary carries its own documents: ${carried.map(([file, how]) => `\`${how}\` prints ${file}`).join(", ")}.`,
      "",
    );
  if (doc.bindings?.mcp)
    out.push(
      `Over MCP (stdio): \`${doc.bindings.mcp}\` serves these commands as tools named \`${doc.tool}_<verb>[_<resource>]\`; the read-only profile leaves out the writes.`,
      "",
    );
  if (doc.env.length) {
    out.push("## Environment", "", "| Variable | Scope | Required | What |", "|---|---|---|---|");
    for (const e of doc.env)
      out.push(`| \`${e.name}\` | ${e.scope} | ${e.required ? "yes" : "no"} | ${cell(e.description)} |`);
    out.push("");
  }
  out.push("## Commands", "");
  for (const c of doc.commands) out.push(...commandSkill(doc, c));
  return `${out.join("\n").trimEnd()}\n`;
}

/** One command's section: what it is, its flags, environment, errors and examples. */
function commandSkill(doc: DescribeDoc, c: DescribeDoc["commands"][number]): string[] {
  const out: string[] = [];
  out.push(`### \`${doc.tool} ${c.name}\``, "", c.summary, "");
  if (c.description) out.push(c.description, "");
  const facts = [
    `${c.rw === "read" ? "read-only" : "write (plans, then applies through the gate)"}`,
    `tier ${c.tier}`,
    `result \`${c.result_schema}\``,
  ];
  if (c.person) facts.push("a person's act: command line only (never MCP, a declared tool or a job step)");
  if (c.stage)
    facts.push(
      `writes \`${c.stage.writes}.json\`${c.stage.reads.length ? ` from ${c.stage.reads.map((r) => `\`${r}.json\``).join(", ")}` : ""}`,
    );
  if (c.pagination) facts.push(`pages of ${c.pagination.default_limit} (max ${c.pagination.max_limit})`);
  if (c.max_duration !== undefined)
    facts.push(
      `runs at most ${c.max_duration} s: a credential that dies sooner and cannot be refreshed fails it at start (\`CREDENTIAL_EXPIRED\`)`,
    );
  out.push(`- ${facts.join("; ")}`, "");
  if (c.flags.length) {
    out.push("| Flag | Type | Notes | What |", "|---|---|---|---|");
    for (const f of c.flags) {
      const values = flagValues(f, c);
      const listed = values?.map((v) => `\`${v}\``).join(" \\| ");
      const type = f.type === "array" ? `${listed ? `(${listed})` : f.items}[]` : (listed ?? f.type);
      out.push(
        `| \`--${f.name}\` | ${type} | ${cell(flagNotes(f).replace(/^ \(|\)$/g, "") || "optional")} | ${cell(f.description ?? "")} |`,
      );
    }
    out.push("");
  }
  if (c.env.length)
    out.push(
      `Environment: ${c.env.map((e) => `\`${e.name}\` (${e.scope}${e.lifetime ? `; expires, ${e.lifetime.refresh ? "refreshed by the kit" : "not refreshable"}` : ""})`).join(", ")}.`,
      "",
    );
  if (c.secrets_out?.length)
    out.push(
      `Register-once secrets: ${c.secrets_out.map((o) => `\`${o.name}\` (${cell(o.description)})`).join(", ")}, in \`meta.secrets_out\` of the one envelope that issues them; never shown again, stored nowhere by the tool. Hand them to the platform's secret sink (the harness does), never to a file or a log.`,
      "",
    );
  const own = c.errors.filter(
    (code) => !["INTERNAL", "USAGE", "UNKNOWN_COMMAND", "UNKNOWN_FLAG", "CANCELLED"].includes(code),
  );
  out.push(`Errors: ${own.map((code) => `\`${code}\` (${doc.error_codes[code]?.exit})`).join(", ")}.`, "");
  for (const e of c.examples) out.push("```sh", e.command_line, "```", e.summary, "");
  return out;
}

/** The exit classes, in the exit table's order, each with the move it asks for. */
const exitTable = (): string =>
  [
    "| Exit | Meaning | Your move |",
    "|---|---|---|",
    ...(Object.keys(EXIT) as ExitClass[]).map(
      (k) => `| ${EXIT[k]} | ${EXIT_READINGS[k].brief} | ${EXIT_READINGS[k].move} |`,
    ),
  ].join("\n");

/** The universal flags the tools describe, each once, in table order. */
function universalTable(docs: readonly DescribeDoc[]): string {
  const flags = new Map<string, { type: string; description: string }>();
  for (const d of docs) for (const f of d.universal_flags) if (!flags.has(f.name)) flags.set(f.name, f);
  return [
    "| Flag | Type | What |",
    "|---|---|---|",
    ...[...flags].map(([name, f]) => `| \`--${name}\` | ${f.type} | ${cell(f.description)} |`),
  ].join("\n");
}

/** The one fleet-level skill: what every tool here guarantees. */
export function fleetSkill(docs: readonly DescribeDoc[]): string {
  const first = docs[0];
  const codes = new Map<string, { exit: number; retryable: boolean; summary: string }>();
  for (const d of docs) for (const [k, v] of Object.entries(d.error_codes)) codes.set(k, v);
  return `---
name: agent-cli-kit
description: "Every command-line tool in this fleet obeys one contract: one JSON envelope on stdout, stable error codes with exit classes, bounded lists, plan/apply for writes."
---

# The fleet contract (contract_version ${first?.contract_version ?? 0})

Tools: ${docs.map((d) => `\`${d.tool}\` (${d.purpose})`).join("; ")}.

## Calling a tool
- Shape: \`<tool> <verb> [flags]\` or \`<tool> <resource> <verb> [flags]\`. Flags only, no positional arguments.
- Tier-1 verbs mean the same everywhere: ${TIER1_VERBS.map(code).join(", ")}. Tier-2 verbs (pipeline stages) are listed by \`<tool> --describe\`; never guess one. There is no ${oneOf(Object.keys(FORBIDDEN_SYNONYMS))}.
- Pass \`--json\` always. Read \`<tool> --describe\` for commands, flags (with JSON Schema), result schemas, errors and environment.
- Complex input: \`--params FILE\` or \`--params -\` (stdin) takes the command's flags as one JSON object, keys as the flag names.
- One encoding at a time: \`--json\` and \`--toon\` together is \`CONFLICTING_FLAGS\` (exit 2). \`--help --json\` answers with an envelope whose \`data\` holds the help text (\`help\`, \`usage\`); plain \`--help\` prints text. \`<tool> --skill\` and \`<tool> --spec\` print the tool's SKILL.md and spec.yaml.

## Universal flags
Every command takes these, and none redefines one:

${universalTable(docs)}

## The envelope
Exactly one JSON object on stdout: \`{ ok, contract_version, tool, command, data, error, meta }\`. \`ok\` is true exactly when \`data\` is an object and \`error\` is null. \`meta\` always has \`schema\`, \`duration_ms\`, \`cost_usd\`, \`llm_tokens\`, \`pagination\`, \`truncated\`, \`truncation_hint\`, \`run_dir\`, \`outcome\`. Diagnostics go to stderr.

## Errors and exits
\`error\` has \`code\`, a one-line \`message\` that lists valid values, \`retryable\`, and where useful \`allowed\`, \`got\`, \`hint\` (the next action) and \`detail\`.

${exitTable()}

| Code | Exit | Retryable | Meaning |
|---|---|---|---|
${[...codes].map(([k, v]) => `| \`${k}\` | ${v.exit} | ${v.retryable ? "yes" : "no"} | ${cell(v.summary)} |`).join("\n")}

## Lists
Every list is bounded (default at most ${KIT_DEFAULT_LIMIT}). A cut list sets \`meta.truncated\` and a \`truncation_hint\`; continue with \`--cursor <meta.pagination.next_cursor>\` and the same flags. \`--limit 0\` is an error, not "everything"; \`--limit\` on a command that returns no list is \`USAGE\` (exit 2), naming the commands that take it. \`--fields a,b.c\` trims \`data\` to those paths. \`meta.next\` lists the commands to run next.

## Over MCP
A tool's answer is a text block with \`data\` and, when there is more to say, a second text block \`{"meta": {truncated, next_cursor, truncation_hint, next}}\`: the same cursor, hint and next steps as \`meta\` (pass \`next_cursor\` as the argument \`cursor\`). A long call sends progress notifications when the request carries a progress token.

## Writes
Nothing changes the world except \`apply --plan <plan.json>\` of an approved plan. \`plan\` and the write verbs only write a plan. \`--dry-run\` reports what would happen. \`--yes\` answers a confirmation but never passes a policy gate (exit 5). A plan, a review and an apply answer with \`total\`, \`counts\` (per action, or per outcome) and the first page of their items; \`<tool> plan-item list --plan <run dir>\` reads the rest, and plan.json holds them all.

## Identity
Credentials come from the environment only and are never printed: secrets in output are redacted. No tool writes a credential, a profile or a config file. Injected credentials fail in known ways, each with its code:
- A credential that expires (its \`env\` entry in \`--describe\` has a \`lifetime\`) is refreshed by the tool before it expires and once on a 401, through the platform's refresh endpoint; you do nothing.
- \`CREDENTIAL_EXPIRED\` (exit 4, not retryable): a credential is dead at start, or dies before the command's \`max_duration\`, with no refresh path; nothing ran. Do not retry: the job needs re-dispatch with fresh credentials (the harness report marks the step \`remedy: "re-dispatch"\`). A re-dispatched \`apply\` re-executes nothing that landed.
- \`AUTH_FAILED\` (exit 4, not retryable): a service bound to an injected credential refused it (401) after one refresh, or with no refresh path given. Re-dispatch, as above.
- \`CREDENTIAL_REJECTED\` (exit 3): a model key was refused; the hint names the variable to fix.
- Register-once secrets: a command that declares \`secrets_out\` may return a newly issued secret in \`meta.secrets_out\`, on stdout only and only once; it is masked everywhere else. Never copy it into a file, a note or a message: the harness hands it to the platform's secret sink.
`;
}
