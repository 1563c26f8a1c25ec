/**
 * What real data proved of a tool's lists (contract §6, kit extension
 * `cursor`): a list check no data could prove is reported *not proven*,
 * with the reasons; --strict fails it.
 */
import type { Subject } from "../base/subject.ts";
import type { CheckId } from "../base/report.ts";
import type { DescribeDoc } from "../base/schemas.ts";

export type ListCheck = "lists.bounded" | "lists.truncation" | "lists.cursor";
export const LIST_CHECKS: readonly ListCheck[] = ["lists.bounded", "lists.truncation", "lists.cursor"];

interface Proof {
  proven: Set<ListCheck>;
  why: Map<ListCheck, string[]>;
  /** How data was made for a list that had too little of its own, by command. */
  made: Map<string, string>;
}

const proofs = new WeakMap<Subject, Proof>();
const proofOf = (s: Subject): Proof => {
  let p = proofs.get(s);
  if (!p) proofs.set(s, (p = { proven: new Set(), why: new Map(), made: new Map() }));
  return p;
};

export const prove = (s: Subject, id: ListCheck): void => {
  proofOf(s).proven.add(id);
  s.findings.exercised(id);
};

export const proven = (s: Subject, id: ListCheck): boolean => proofOf(s).proven.has(id);

export const unproven = (s: Subject, id: ListCheck, why: string): void => {
  const w = proofOf(s).why;
  w.set(id, [...(w.get(id) ?? []), why]);
};

/** A list whose data verify made with the tool's own write path: said in lists.bounded's note. */
export const madeData = (s: Subject, command: string, how: string): void => void proofOf(s).made.set(command, how);

/** After every list probe: a list check no data proved is *not proven*, with the reasons; --strict fails it. */
export function concludeLists(s: Subject, doc: DescribeDoc): void {
  const p = proofOf(s);
  if (!doc.commands.some((c) => c.isList)) return;
  if (p.made.size)
    s.findings.note("lists.bounded", [...p.made].map(([command, how]) => `'${command}': ${how}`).join("; "));
  for (const id of LIST_CHECKS) {
    if (p.proven.has(id) || s.findings.failed(id as CheckId)) continue;
    const why = [...new Set(p.why.get(id) ?? ["no list command was run on data"])].join("; ");
    // Unreadable envelopes and hangs are their own checks' findings: the lists they hid are not a second one.
    const unreadable = s.findings.failed("output.one-json") || s.findings.failed("envelope.shape");
    const cut = s.sandbox.cutShortRuns > 0;
    if (s.strict && !unreadable && !cut)
      s.findings.fail(id, `not proven: ${why}; give it data (a golden case, or an example that lists more)`);
    else
      s.findings.skip(
        id,
        `not proven: ${why}${cut ? `; ${s.sandbox.cutShortRuns} of its runs were cut short once it had hung twice (noninteractive.no-hang)` : ""}`,
      );
  }
}
