/**
 * contract §3 where a terminal is the point: under --no-input nothing
 * prompts, even where a person could answer. Each command runs once as its
 * side-effect probe does (its first example, a plan made first; a write with
 * --dry-run), with --no-input and stdin and stderr on a pseudo-terminal
 * (terminal.ts): a read of the terminal, or a wait on it, fails
 * noninteractive.tty. A prompt that a pipe already showed is
 * noninteractive.no-hang's finding, reported once, there.
 */
import { inspectEnvelope } from "../base/inspect.ts";
import type { Subject } from "../base/subject.ts";
import type { RunResult } from "../base/sandbox.ts";
import type { CommandDoc, DescribeDoc } from "../base/schemas.ts";
import { ptyPython } from "../base/terminal.ts";
import { prepare, workspace } from "./effects.ts";
import { requiredArgv, words } from "./values.ts";

/** What only a terminal showed, held until every other probe has run. */
const pending = new WeakMap<Subject, { what: string; r: RunResult }[]>();

async function probe(s: Subject, doc: DescribeDoc, c: CommandDoc, python: string): Promise<string | null> {
  const argv = c.examples?.[0]?.argv ?? requiredArgv(c);
  const w = workspace(s, `terminal-${c.name.replace(/ /g, "-")}`);
  await prepare(s, doc, w, c, argv);
  const dryRun = c.rw === "write" ? ["--dry-run"] : [];
  const r = await s.sandbox.run({
    label: `${c.name}: on a terminal under --no-input`,
    argv: [...words(c), ...argv, ...dryRun, "--no-input"],
    cwd: w.cwd,
    env: w.env,
    terminal: { python },
  });
  const seen = r.terminal;
  if (seen && "unavailable" in seen) return seen.unavailable;
  const found = pending.get(s)!;
  const shown = seen?.text.trim() ? `; it wrote ${JSON.stringify(seen.text.trim().slice(0, 120))} to the terminal` : "";
  if (r.timedOut) {
    found.push({ what: `'${c.name}' waited on a terminal under --no-input until killed${shown}`, r });
    return null;
  }
  inspectEnvelope(s, r, c);
  if (seen && seen.read > 0)
    found.push({
      what: `'${c.name}' read ${seen.read} byte(s) from the terminal under --no-input (a prompt)${shown}`,
      r,
    });
  const leaked = Object.entries(s.sandbox.canaries).find(([, value]) => seen?.text.includes(value));
  if (leaked) s.findings.fail("identity.canary", `the value of ${leaked[0]} was written to the terminal`, r);
  s.findings.exercised("noninteractive.tty");
  return null;
}

export async function checkTerminal(s: Subject, doc: DescribeDoc): Promise<void> {
  const python = await ptyPython();
  if (!python)
    return s.findings.skip(
      "noninteractive.tty",
      "no pseudo-terminal: no python3 on PATH (verify opens one with python3's standard library)",
    );
  pending.set(s, []);
  const unavailable = await Promise.all(doc.commands.map((c) => probe(s, doc, c, python)));
  const why = unavailable.find((u) => u !== null);
  if (why) s.findings.skip("noninteractive.tty", `no pseudo-terminal: ${why}`);
}

/** After every probe: what only a terminal showed fails noninteractive.tty, unless a pipe showed the tool prompting already. */
export function concludeTerminal(s: Subject): void {
  const found = pending.get(s) ?? [];
  if (found.length === 0) return;
  if (s.findings.failed("noninteractive.no-hang")) {
    const why = `${found.length} terminal probe(s) read or waited: reported under noninteractive.no-hang, where a pipe showed the tool prompting`;
    s.findings.skip("noninteractive.tty", why);
    s.findings.note("noninteractive.tty", why);
    return;
  }
  for (const { what, r } of found) s.findings.fail("noninteractive.tty", what, r);
}
