/**
 * Each example of --describe run once, as documented (a write with --dry-run
 * added), and read once: examples.run and output.limit-honoured both judge
 * the same answer, so neither pays for a second run.
 */
import { inspectEnvelope } from "../base/inspect.ts";
import type { RunResult } from "../base/sandbox.ts";
import type { CommandDoc, DescribeDoc, Envelope, ExampleDoc } from "../base/schemas.ts";
import type { Subject } from "../base/subject.ts";

export interface ExampleRun {
  readonly r: RunResult;
  readonly env: Envelope | null;
}

/** The argv of an example as verify runs it: the command's words, its argv, and --dry-run for a write. */
export const exampleArgv = (c: CommandDoc, e: ExampleDoc): string[] => [
  ...c.name.split(" "),
  ...e.argv,
  ...(c.rw === "write" && !e.argv.includes("--dry-run") ? ["--dry-run"] : []),
];

const runs = new WeakMap<Subject, Map<string, Promise<ExampleRun>>>();

/** Example n of command c, run and inspected the first time it is asked for; the same answer after. */
export function runExampleOnce(s: Subject, doc: DescribeDoc, c: CommandDoc, e: ExampleDoc, n: number) {
  let mine = runs.get(s);
  if (!mine) runs.set(s, (mine = new Map()));
  const key = `${c.name}\n${n}`;
  let run = mine.get(key);
  if (!run) {
    const argv = exampleArgv(c, e);
    const dryRun = argv.length > c.name.split(" ").length + e.argv.length ? " --dry-run" : "";
    const line = [doc.tool, ...c.name.split(" "), ...e.argv].join(" ");
    run = s.sandbox
      .run({ label: `${c.name}: example ${n} (${line}${dryRun})`, argv })
      .then((r) => ({ r, env: inspectEnvelope(s, r, c) }));
    mine.set(key, run);
  }
  return run;
}
