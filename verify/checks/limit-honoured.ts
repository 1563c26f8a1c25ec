/**
 * contract §6 (`--limit N` bounds a list; "0/absent never means unbounded"):
 * a command whose answer holds an array longer than 1 is run again with
 * `--limit 1`; its answer must hold no array longer than 1, or be refused as
 * a usage error (exit 2). Never silently ignored. Judged on each command's
 * first example whose ok answer has an array to bound, and on a list's own
 * `--limit 1` page (lists.ts); a command with neither is not proven, and the
 * check's note says which were judged.
 */
import { inspectEnvelope } from "../base/inspect.ts";
import { longestArray } from "../base/bounded.ts";
import { classOf, type Subject } from "../base/subject.ts";
import type { RunResult } from "../base/sandbox.ts";
import type { CommandDoc, DescribeDoc, Envelope } from "../base/schemas.ts";
import { exampleArgv, runExampleOnce } from "./example-runs.ts";
import { without } from "./list-items.ts";

/** The command's first example whose ok answer holds an array longer than 1, with that array. */
async function boundable(s: Subject, doc: DescribeDoc, c: CommandDoc) {
  for (const [i, e] of (c.examples ?? []).entries()) {
    const { env } = await runExampleOnce(s, doc, c, e, i + 1);
    const longest = env?.ok ? longestArray(env.data) : null;
    if (longest && longest.length > 1) return { e, longest };
  }
  return null;
}

const judged = new WeakMap<Subject, Set<string>>();

/**
 * An answer to --limit 1 of a command whose answer without it held `before`
 * (an array longer than 1): honoured, or refused as a usage error. Also
 * called on a list's own `--limit 1` page (lists.ts).
 */
export function judgeLimitOne(
  s: Subject,
  c: CommandDoc,
  before: { key: string; length: number },
  r: RunResult,
  env: Envelope,
): void {
  if (!env.ok && !(r.exit === 2 && classOf(s, env.error!.code, r.exit) === 2)) return;
  let names = judged.get(s);
  if (!names) judged.set(s, (names = new Set()));
  names.add(c.name);
  const longest = env.ok ? longestArray(env.data) : null;
  s.findings.expect(
    "output.limit-honoured",
    longest === null || longest.length <= 1,
    `'${c.name}' answered ${before.length} items in data.${before.key}; with --limit 1 it answered ${longest?.length} in data.${longest?.key}: --limit was silently ignored (honour it, or refuse it as a usage error)`,
    r,
  );
}

/** One command: its example again with --limit 1. */
async function judge(s: Subject, doc: DescribeDoc, c: CommandDoc): Promise<void> {
  const found = await boundable(s, doc, c);
  if (!found) return;
  const argv = [...without(exampleArgv(c, found.e), ["limit", "cursor"]), "--limit", "1"];
  const r = await s.sandbox.run({ label: `${c.name}: an example with --limit 1`, argv });
  const env = inspectEnvelope(s, r, c);
  if (env) judgeLimitOne(s, c, found.longest, r, env);
}

export async function checkLimitHonoured(s: Subject, doc: DescribeDoc): Promise<void> {
  await Promise.all(doc.commands.map((c) => judge(s, doc, c)));
}

/** After every probe: which commands were judged, and what was not proven. */
export function concludeLimitHonoured(s: Subject): void {
  const names = [...(judged.get(s) ?? [])].sort();
  const unproven =
    "a command whose examples (or, for a list, whose own data) answer no array longer than 1 is not run with --limit 1";
  if (names.length === 0) return s.findings.skip("output.limit-honoured", `not proven: ${unproven}`);
  s.findings.note("output.limit-honoured", `judged on ${names.map((n) => `'${n}'`).join(", ")}; ${unproven}`);
}
