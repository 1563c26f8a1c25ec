/**
 * contract §9 (kit extension `examples`): an example is what an agent copies,
 * so it must run, and the line it is printed as must be the argv it claims.
 * Each example of --describe is run in the sandbox (a write with --dry-run
 * added); each printed line, in --describe's command_line, --help's EXAMPLES
 * and SKILL.md's ```sh blocks, is split as a POSIX shell would split it.
 */
import { isDeepStrictEqual } from "node:util";
import { KNOWN_CODE_EXITS } from "../base/contract.ts";
import type { Documents } from "../base/documents.ts";
import { inspectStreams } from "../base/inspect.ts";
import { classOf, type Subject } from "../base/subject.ts";
import type { CommandDoc, DescribeDoc, ExampleDoc } from "../base/schemas.ts";
import { shellWords } from "../base/shell-words.ts";
import { runExampleOnce } from "./example-runs.ts";
import { section } from "./introspection.ts";

const full = (doc: DescribeDoc, c: CommandDoc, e: ExampleDoc): string[] => [doc.tool, ...c.name.split(" "), ...e.argv];

/** Runs one example as documented; it must not be refused, and may only fail in a way the command declares. */
async function runExample(s: Subject, doc: DescribeDoc, c: CommandDoc, e: ExampleDoc, n: number): Promise<void> {
  const { r, env } = await runExampleOnce(s, doc, c, e, n);
  if (!env) return;
  const f = s.findings;
  if (env.ok) return f.exercised("examples.run");
  const code = env.error!.code;
  if (
    !f.expect(
      "examples.run",
      classOf(s, code, r.exit) !== 2 && r.exit !== 2,
      `example ${n} of '${c.name}' is refused as a usage error: ${code}: ${env.error!.message}`,
      r,
    )
  )
    return;
  if (c.errors === null) return;
  const exits = new Set([0, ...c.errors.map((x) => KNOWN_CODE_EXITS[x] ?? doc.error_codes?.[x]?.exit)]);
  f.expect(
    "examples.run",
    c.errors.includes(code) && exits.has(r.exit ?? -1),
    `example ${n} of '${c.name}' exits ${r.exit} with ${code}, which '${c.name}' does not declare (${c.errors.join(", ")})`,
    r,
  );
}

/** Whether each printed line splits into its example's words: null when all do, else the first that does not. */
function misprinted(where: string, lines: readonly string[], expected: readonly string[][]): string | null {
  if (lines.length !== expected.length)
    return `${where} prints ${lines.length} example line(s); --describe lists ${expected.length}`;
  for (const [i, line] of lines.entries()) {
    const split = shellWords(line);
    if ("error" in split) return `${where}: \`${line}\` has ${split.error}`;
    if (!isDeepStrictEqual(split.words, expected[i]))
      return `${where}: \`${line}\` splits into ${JSON.stringify(split.words)}, not the example's ${JSON.stringify(expected[i])}`;
  }
  return null;
}

/** The ```sh lines under each `### \`tool command\`` heading of SKILL.md. */
function skillLines(text: string, tool: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | null = null;
  let fence: "sh" | "other" | null = null;
  for (const line of text.split("\n")) {
    const heading = line.match(/^###\s+`([^`]+)`\s*$/);
    if (heading) out.set(heading[1]!.replace(new RegExp(`^${tool}\\s+`), ""), (current = []));
    else if (/^#{1,3}\s/.test(line)) current = null;
    else if (/^```/.test(line)) fence = fence !== null ? null : /^```(sh|bash|shell)?\s*$/.test(line) ? "sh" : "other";
    else if (fence === "sh" && line.trim()) current?.push(line.trim());
  }
  return out;
}

async function checkLines(
  s: Subject,
  doc: DescribeDoc,
  c: CommandDoc,
  skill: Map<string, string[]> | null,
): Promise<void> {
  const examples = c.examples ?? [];
  const expected = examples.map((e) => full(doc, c, e));
  const f = s.findings;
  const described = examples.map((e) => e.command_line);
  if (described.some((l) => l === null))
    f.fail("examples.quoting", `'${c.name}': an example in --describe has no command_line`);
  else {
    const problem = misprinted(`'${c.name}' --describe command_line`, described as string[], expected);
    f.expect("examples.quoting", problem === null, problem ?? "");
  }
  const r = await s.sandbox.run({ label: `${c.name} --help (examples)`, argv: [...c.name.split(" "), "--help"] });
  if (inspectStreams(s, r) && r.exit === 0) {
    const lines = section(r.stdout, "EXAMPLES")
      .filter((l) => l.startsWith(`  ${doc.tool} `))
      .map((l) => l.trim());
    const problem = misprinted(`'${c.name} --help' EXAMPLES`, lines, expected);
    f.expect("examples.quoting", problem === null, problem ?? "", r);
  }
  if (skill) {
    const problem = misprinted(`SKILL.md '${c.name}'`, skill.get(c.name) ?? [], expected);
    f.expect("examples.quoting", problem === null, problem ?? "");
  }
}

export async function checkExamples(s: Subject, doc: DescribeDoc, documents: Documents): Promise<void> {
  const withExamples = doc.commands.filter((c) => c.examples?.length);
  if (withExamples.length === 0) {
    const why = "--describe lists no examples (no command has an `examples` list of { argv })";
    s.findings.skip("examples.run", why);
    s.findings.skip("examples.quoting", why);
    return;
  }
  const found = await documents.get("SKILL.md");
  const skill = "missing" in found ? null : skillLines(found.text, doc.tool);
  await Promise.all(
    withExamples.flatMap((c) => [
      checkLines(s, doc, c, skill),
      ...c.examples!.map((e, i) => runExample(s, doc, c, e, i + 1)),
    ]),
  );
}
