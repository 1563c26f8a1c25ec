/**
 * contract §9: --help, --describe and SKILL.md are three views of one
 * definition, so each names every command and flag --describe lists (the
 * contract: anywhere in the text). Under the kit's layouts (extensions
 * help-layout, skill-layout) they list exactly those: --help by its sections
 * (COMMANDS, FLAGS, UNIVERSAL FLAGS); SKILL.md by its `### \`tool command\``
 * headings and `| \`--flag\` |` rows.
 */
import { KIT_UNIVERSAL_FLAGS, UNIVERSAL_FLAGS } from "../base/contract.ts";
import type { Documents } from "../base/documents.ts";
import { inspectStreams } from "../base/inspect.ts";
import { holds, type Subject } from "../base/subject.ts";
import type { CommandDoc, DescribeDoc } from "../base/schemas.ts";

/** The lines under a heading, up to the next heading (a line in capitals at the margin). */
export function section(text: string, heading: string): string[] {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.trim() === heading && !/^\s/.test(l));
  if (start === -1) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^[A-Z][A-Z ]+$/.test(line)) break;
    out.push(line);
  }
  return out;
}

const flagsIn = (lines: readonly string[]): string[] =>
  lines.map((l) => l.match(/^\s+--([a-z][a-z0-9-]*)/)?.[1]).filter((x): x is string => Boolean(x));

const diff = (what: string, got: readonly string[], want: readonly string[]): string | null => {
  const missing = want.filter((x) => !got.includes(x));
  const extra = got.filter((x) => !want.includes(x));
  if (!missing.length && !extra.length) return null;
  return `${what}: ${missing.length ? `missing ${missing.join(", ")}` : ""}${missing.length && extra.length ? "; " : ""}${extra.length ? `not in --describe: ${extra.join(", ")}` : ""}`;
};

/** Words that should appear in a text, and which do not: a command by its name, a flag as --name. */
const absentFrom = (text: string, words: readonly string[]): string[] =>
  words.filter(
    (w) => !new RegExp(`(^|[^a-z0-9-])${w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^a-z0-9-])`, "m").test(text),
  );

export async function checkToolHelp(s: Subject, doc: DescribeDoc): Promise<void> {
  const r = await s.sandbox.run({ label: "tool --help", argv: ["--help"] });
  if (!inspectStreams(s, r)) return;
  if (
    !s.findings.expect(
      "introspection.help",
      r.exit === 0 && r.stdout.trim() !== "",
      `--help exited ${r.exit}${r.stdout.trim() ? "" : " with nothing on stdout"}, expected exit 0 and help text`,
      r,
    )
  )
    return;
  const missing = absentFrom(
    r.stdout,
    doc.commands.map((c) => c.name),
  );
  if (
    !s.findings.expect(
      "introspection.help",
      missing.length === 0,
      `--help does not name the command(s) ${missing.join(", ")} that --describe lists`,
      r,
    )
  )
    return;
  if (!holds(s, "help-layout")) return;
  const listed = section(r.stdout, "COMMANDS")
    .map((l) => l.match(/^\s+(\S+(?: [a-z][a-z0-9-]*)?)(?:\s{2,}|$)/)?.[1])
    .filter((x): x is string => Boolean(x));
  const problem = diff(
    "--help COMMANDS",
    listed,
    doc.commands.map((c) => c.name),
  );
  s.findings.expect("introspection.help-layout", problem === null, problem ?? "", r);
}

/** The universal flags help must list: the contract's and the kit's, and any more the tool's --describe declares. */
const universalOf = (doc: DescribeDoc | null): string[] => [
  ...new Set([...UNIVERSAL_FLAGS, ...KIT_UNIVERSAL_FLAGS, ...(doc?.universal_flags ?? [])]),
];

export async function checkCommandHelp(s: Subject, c: CommandDoc): Promise<void> {
  const r = await s.sandbox.run({ label: `${c.name} --help`, argv: [...c.name.split(" "), "--help"] });
  if (!inspectStreams(s, r)) return;
  if (!s.findings.expect("introspection.help", r.exit === 0, `'${c.name} --help' exited ${r.exit}, expected 0`, r))
    return;
  const missing = absentFrom(
    r.stdout,
    c.flags.map((f) => `--${f.name}`),
  );
  if (
    !s.findings.expect(
      "introspection.help",
      missing.length === 0,
      `'${c.name} --help' does not name ${missing.join(", ")}, which --describe lists`,
      r,
    )
  )
    return;
  if (!holds(s, "help-layout")) return;
  const problem =
    diff(
      `'${c.name} --help' FLAGS`,
      flagsIn(section(r.stdout, "FLAGS")),
      c.flags.map((f) => f.name),
    ) ?? diff(`'${c.name} --help' UNIVERSAL FLAGS`, flagsIn(section(r.stdout, "UNIVERSAL FLAGS")), universalOf(s.doc));
  s.findings.expect("introspection.help-layout", problem === null, problem ?? "", r);
}

/** What SKILL.md gets wrong about --describe: commands and flags it leaves out, and flags no command has. */
function skillProblems(doc: DescribeDoc, text: string): string[] {
  const flags = new Set(doc.commands.flatMap((c) => c.flags.map((f) => f.name)));
  const missing = [
    ...absentFrom(
      text,
      doc.commands.map((c) => c.name),
    ),
    ...absentFrom(
      text,
      [...flags].map((f) => `--${f}`),
    ),
  ];
  // A flag SKILL.md teaches that no command has would send an agent astray: every --flag it names must exist.
  // Flags of the tool's other doors count too: what its documents and bindings say how to start.
  const doorFlags = [...Object.values(doc.documents ?? {}), ...Object.values(doc.bindings ?? {})].flatMap((d) =>
    [...String(d).matchAll(/--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!),
  );
  const known = new Set([
    ...flags,
    ...UNIVERSAL_FLAGS,
    ...KIT_UNIVERSAL_FLAGS,
    ...(doc.universal_flags ?? []),
    ...doorFlags,
  ]);
  const invented = [...new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!))].filter(
    (name) => !known.has(name),
  );
  return [
    ...(missing.length ? [`does not name ${missing.join(", ")}, which --describe lists`] : []),
    ...(invented.length ? [`names ${invented.map((n) => `--${n}`).join(", ")}, which no command has`] : []),
  ];
}

/** Kit extension skill-layout: a `### \`tool command\`` heading per command, a `| \`--flag\` |` row per flag, exactly. */
function layoutProblem(doc: DescribeDoc, text: string): string | null {
  const blocks = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of text.split("\n")) {
    const heading = line.match(/^###\s+`([^`]+)`\s*$/);
    if (heading) {
      const name = heading[1]!.replace(new RegExp(`^${doc.tool}\\s+`), "");
      current = [];
      blocks.set(name, current);
    } else if (/^#{1,3}\s/.test(line)) current = null;
    else current?.push(line);
  }
  const rowsOf = (name: string) =>
    (blocks.get(name) ?? [])
      .map((l) => l.match(/^\|\s*`--([a-z][a-z0-9-]*)`/)?.[1])
      .filter((x): x is string => Boolean(x));
  return (
    diff(
      "SKILL.md commands",
      [...blocks.keys()],
      doc.commands.map((c) => c.name),
    ) ??
    doc.commands
      .map((c) =>
        diff(
          `SKILL.md '${c.name}' flags`,
          rowsOf(c.name),
          c.flags.map((f) => f.name),
        ),
      )
      .find((p) => p !== null) ??
    null
  );
}

export async function checkSkill(s: Subject, doc: DescribeDoc, documents: Documents): Promise<void> {
  const found = await documents.get("SKILL.md");
  if ("missing" in found) return s.findings.fail("introspection.skill", found.missing);
  const { text, where: path } = found;
  const problems = skillProblems(doc, text);
  if (!s.findings.expect("introspection.skill", problems.length === 0, `SKILL.md (${path}) ${problems.join("; ")}`))
    return;
  if (!holds(s, "skill-layout")) return;
  const problem = layoutProblem(doc, text);
  s.findings.expect("introspection.skill-layout", problem === null, `${problem} (${path})`);
}
