/**
 * Lists no golden case drove (contract §6): judged on the tool's own data,
 * from its examples, else its required flags alone; where that data is too
 * short to show a bound, on data verify makes with the tool's own write path
 * (grow.ts). What no data proves is *not proven* (list-proof.ts).
 */
import { inspectEnvelope } from "../base/inspect.ts";
import type { Subject } from "../base/subject.ts";
import type { RunResult } from "../base/sandbox.ts";
import type { CommandDoc, DescribeDoc, Envelope } from "../base/schemas.ts";
import { grow } from "./grow.ts";
import { declaredDefault, isObject, without } from "./list-items.ts";
import { LIST_CHECKS, madeData, proven, unproven } from "./list-proof.ts";
import { checkList } from "./lists.ts";
import { requiredArgv, words } from "./values.ts";

type FieldsCheck = (s: Subject, c: CommandDoc, r: RunResult, env: Envelope) => Promise<void>;

const listArgv = (c: CommandDoc, argv: readonly string[]): string[] => [
  ...words(c),
  ...without(argv, ["limit", "cursor", "fields"]),
  "--no-input",
];

/** The list again, on data made by the tool's own write path; its bound is judged there. */
async function onMadeData(s: Subject, doc: DescribeDoc, c: CommandDoc, argv: readonly string[], bound: number | null) {
  if (bound === null)
    return unproven(s, "lists.bounded", `'${c.name}' gave no list and declares no default limit to exceed`);
  const grown = await grow(s, doc, c, argv, bound);
  if ("why" in grown) return unproven(s, "lists.bounded", `'${c.name}' held too few items; ${grown.why}`);
  const seen = await checkList(s, c, listArgv(c, argv), { cwd: grown.cwd, env: grown.env });
  if (seen.listed && seen.boundShown) madeData(s, c.name, grown.how);
}

/**
 * The list on its own data: each way to run it in turn (its examples, its
 * required flags alone) until one shows its
 * bound; an example with a filter may list too few where the plain list has plenty.
 */
async function ownList(s: Subject, doc: DescribeDoc, c: CommandDoc, drove: ReadonlySet<string>, fields: FieldsCheck) {
  const candidates = [...(c.examples ?? []).map((e) => e.argv), requiredArgv(c)];
  let first: { argv: readonly string[]; bound: number } | null = null;
  for (const argv of candidates) {
    const full = listArgv(c, argv);
    const seen = await checkList(s, c, full);
    if (!seen.listed) continue;
    if (first === null) {
      first = { argv, bound: seen.bound };
      const r = await s.sandbox.run({ label: `${c.name} (its own data)`, argv: full });
      const env = inspectEnvelope(s, r, c);
      if (env?.ok && isObject(env.data)) await fields(s, c, r, env);
    }
    if (seen.boundShown) return;
  }
  if (first) return onMadeData(s, doc, c, first.argv, first.bound);
  // No list from its own data: perhaps it lists only what was made first (a file its create path writes).
  await onMadeData(s, doc, c, candidates[0]!, declaredDefault(c));
  if (!drove.has(c.name))
    for (const id of LIST_CHECKS)
      unproven(
        s,
        id,
        `'${c.name}' gave no list from its examples or its required flags alone, and no golden case runs it`,
      );
}

/** Lists no golden case drove, and those a case drove while a bound is still unproven (a case's data may be short). */
export async function checkOwnLists(
  s: Subject,
  doc: DescribeDoc,
  drove: ReadonlySet<string>,
  fields: FieldsCheck,
): Promise<void> {
  await Promise.all(
    doc.commands
      .filter((c) => c.isList && (!drove.has(c.name) || !proven(s, "lists.bounded")))
      .map((c) => ownList(s, doc, c, drove, fields)),
  );
}
