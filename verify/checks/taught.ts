/**
 * A required flag whose values --describe does not list (an enum the
 * contract's flag shape cannot carry): the tool's own usage error teaches
 * them (contract §4: `allowed`). Learned once per command, before the probes,
 * so every probe that fills the required flags (a list's own data, each bad
 * input) reaches the rule it is testing instead of that same refusal.
 */
import { inspectEnvelope } from "../base/inspect.ts";
import type { CommandDoc, DescribeDoc } from "../base/schemas.ts";
import { classOf, type Subject } from "../base/subject.ts";
import { props, requiredArgv, words } from "./values.ts";

async function learn(s: Subject, c: CommandDoc): Promise<void> {
  const unlisted = c.flags.filter(
    (x) => x.required && (x.type === "enum" || x.type === null) && !x.enum?.length && !props(c)[x.name]?.enum?.length,
  );
  if (unlisted.length === 0) return;
  const argv = requiredArgv(c);
  const r = await s.sandbox.run({
    label: `${c.name}: its required flags (to learn a value its error teaches)`,
    argv: [...words(c), ...argv, ...(c.rw === "write" ? ["--dry-run"] : []), "--no-input"],
  });
  const e = inspectEnvelope(s, r, c)?.error;
  if (!e || !Array.isArray(e.allowed) || e.allowed.length === 0 || classOf(s, e.code, r.exit) !== 2) return;
  const flag = unlisted.find(
    (x) => new RegExp(`--${x.name}(?![a-z0-9-])`).test(e.message) || argv.includes(`--${x.name}=${String(e.got)}`),
  );
  if (flag) flag.taught = String(e.allowed[0]);
}

export async function learnRequiredValues(s: Subject, doc: DescribeDoc): Promise<void> {
  await Promise.all(doc.commands.map((c) => learn(s, c)));
}
