/**
 * Bounded lists (contract §6) and cursors (kit extension `cursor`), judged on
 * real data: a golden case's, or the tool's own (its examples, or its
 * required flags alone). A check that no data could prove is reported
 * *not proven*, with the reason; --strict fails it.
 */
import { isDeepStrictEqual } from "node:util";
import { holds, inspectEnvelope, type Subject } from "../inspect.ts";
import type { CheckId } from "../report.ts";
import type { RunResult } from "../sandbox.ts";
import type { CommandDoc, DescribeDoc, Envelope } from "../schemas.ts";
import { firstField, requiredArgv, words } from "./values.ts";

type ListCheck = "lists.bounded" | "lists.truncation" | "lists.cursor";
const LIST_CHECKS: readonly ListCheck[] = ["lists.bounded", "lists.truncation", "lists.cursor"];

/** Per tool: which list checks real data proved, and why the others were not. */
const proofs = new WeakMap<Subject, { proven: Set<ListCheck>; why: Map<ListCheck, string[]>; walked: Set<string> }>();
const proofOf = (s: Subject) => {
  let p = proofs.get(s);
  if (!p) proofs.set(s, (p = { proven: new Set(), why: new Map(), walked: new Set() }));
  return p;
};
const prove = (s: Subject, id: ListCheck) => {
  proofOf(s).proven.add(id);
  s.findings.exercised(id);
};
const unproven = (s: Subject, id: ListCheck, why: string) => {
  const w = proofOf(s).why;
  w.set(id, [...(w.get(id) ?? []), why]);
};

/** The flags `--name value` / `--name=value` removed from argv. */
export const without = (argv: readonly string[], names: readonly string[]): string[] => {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.startsWith("--") ? a.slice(2).split("=")[0]! : null;
    if (name && names.includes(name)) {
      if (!a.includes("=") && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) i++;
      continue;
    }
    out.push(a);
  }
  return out;
};

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === "object" && !Array.isArray(x);

/** The list in a page: the array whose length pagination.returned gives (`items` first). */
export const itemsOf = (env: Envelope): unknown[] | null => {
  if (!isObject(env.data)) return null;
  const returned = env.meta.pagination?.returned;
  const arrays = Object.entries(env.data).filter(([, val]) => Array.isArray(val)) as [string, unknown[]][];
  return (
    (arrays.find(([k, a]) => k === "items" && a.length === returned) ??
      arrays.find(([, a]) => a.length === returned))?.[1] ?? null
  );
};

/** The default page size a command declares: the kit's pagination, or a plain `default_limit` beside its flags. */
const declaredDefault = (c: CommandDoc): number | null => {
  const raw = c.raw as { default_limit?: unknown; pagination?: { default_limit?: unknown } };
  const n = c.pagination?.default_limit ?? raw.pagination?.default_limit ?? raw.default_limit;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : null;
};

/**
 * Bounded default (at most the declared default, or the page's own limit),
 * a cut page that says so, and (extension cursor) a walk by next_cursor that
 * sees every item once and ends. Returns whether the list had items to judge.
 */
export async function checkList(s: Subject, command: CommandDoc, argv: readonly string[]): Promise<boolean> {
  const f = s.findings;
  const base = without(argv, ["limit", "cursor", "fields"]);
  const run = async (label: string, extra: string[]) => {
    const r = await s.sandbox.run({ label: `${command.name} ${label}`, argv: [...base, ...extra] });
    return { r, env: inspectEnvelope(s, r, command) };
  };
  const dflt = await run("without --limit", []);
  if (!dflt.env?.ok || !isObject(dflt.env.data)) return false;
  const pg = dflt.env.meta.pagination;
  if (
    !f.expect(
      "lists.bounded",
      pg !== null,
      `'${command.name}' returned a list without meta.pagination (expected { limit, returned, total, next_cursor })`,
      dflt.r,
    )
  )
    return true;
  const items = itemsOf(dflt.env);
  const declared = declaredDefault(command);
  const bound = declared ?? pg!.limit;
  const total = pg!.total ?? null;
  const within = pg!.limit === bound && pg!.returned <= bound && items !== null && items.length <= bound;
  if (!within)
    f.fail(
      "lists.bounded",
      `without --limit, '${command.name}' returned ${items?.length ?? "?"} items with meta.pagination.limit ${pg!.limit}; expected at most ${bound}${declared ? " (its declared default)" : ""}`,
      dflt.r,
    );
  else if (total !== null && total > bound) prove(s, "lists.bounded");
  else
    unproven(
      s,
      "lists.bounded",
      `'${command.name}' held ${total ?? pg!.returned} item(s), within its default bound ${bound}: a bound shows only on a longer list`,
    );

  if (total !== null && total > pg!.returned) {
    if (
      f.expect(
        "lists.truncation",
        dflt.env.meta.truncated && /--[a-z]/.test(dflt.env.meta.truncation_hint ?? ""),
        `a cut list (${pg!.returned} of ${total}) must set truncated and a truncation_hint naming a flag (e.g. "--limit=100")`,
        dflt.r,
      )
    )
      prove(s, "lists.truncation");
  }
  if ((total ?? pg!.returned) < 2) {
    unproven(s, "lists.truncation", `'${command.name}' held fewer than two items: nothing to cut`);
    unproven(s, "lists.cursor", `'${command.name}' held fewer than two items: nothing to page`);
    return true;
  }
  const cut = await run("--limit 1", ["--limit", "1"]);
  if (
    cut.env?.ok &&
    f.expect(
      "lists.truncation",
      cut.env.meta.truncated === true && /--[a-z]/.test(cut.env.meta.truncation_hint ?? ""),
      "--limit 1 of a longer list must set truncated and a truncation_hint naming a flag",
      cut.r,
    )
  )
    prove(s, "lists.truncation");
  if (!holds(s, "cursor")) return true;
  if (cut.env?.ok)
    f.expect(
      "lists.cursor",
      cut.env.meta.pagination?.next_cursor != null,
      "--limit 1 of a longer list must give a next_cursor",
      cut.r,
    );
  await walk(s, command, run, total ?? pg!.returned, pg!.total !== null);
  return true;
}

type PageRun = (label: string, extra: string[]) => Promise<{ r: RunResult; env: Envelope | null }>;

/** Follows next_cursor a few items at a time, within a bound: the total, or twice the items seen. */
async function walk(s: Subject, command: CommandDoc, run: PageRun, total: number, totalKnown: boolean): Promise<void> {
  const f = s.findings;
  // The walk is compared with one page holding everything only when one page can; otherwise with the total.
  const max = command.pagination?.max_limit ?? total;
  const onePage = total <= max ? await run(`--limit ${total}`, ["--limit", String(total)]) : null;
  const all = onePage?.env?.ok ? itemsOf(onePage.env) : null;
  const expected = totalKnown ? total : Math.max(total, all?.length ?? 0);
  const k = Math.max(1, Math.floor(Math.min(expected, max) / 3));
  const pageBound = Math.ceil((totalKnown ? expected : 2 * expected) / k) + 1;
  const walked: unknown[] = [];
  const cursors = new Set<string>();
  let cursor: string | null = null;
  let last: RunResult | null = null;
  for (let page = 1; ; page++) {
    if (page > pageBound)
      return f.fail(
        "lists.cursor",
        `walking '${command.name}' ${k} at a time did not end within ${pageBound - 1} pages (${walked.length} items; ${totalKnown ? `meta.pagination.total is ${total}` : `twice the ${expected} seen`})`,
        last ?? undefined,
      );
    const next = await run(`--limit ${k} page ${page}`, [
      "--limit",
      String(k),
      ...(cursor ? ["--cursor", cursor] : []),
    ]);
    last = next.r;
    if (!next.env?.ok) return f.fail("lists.cursor", `page ${page} of the cursor walk failed`, next.r);
    const got = itemsOf(next.env) ?? [];
    walked.push(...got);
    cursor = next.env.meta.pagination?.next_cursor ?? null;
    if (!cursor) break;
    if (got.length === 0)
      return f.fail(
        "lists.cursor",
        `page ${page} of '${command.name}' is empty but gives a next_cursor: the walk would never end`,
        next.r,
      );
    if (totalKnown && walked.length >= total)
      return f.fail(
        "lists.cursor",
        `page ${page} of '${command.name}' ends the list (${walked.length} of meta.pagination.total ${total}) but still gives a next_cursor`,
        next.r,
      );
    if (cursors.has(cursor))
      return f.fail(
        "lists.cursor",
        `page ${page} of '${command.name}' gives a next_cursor already followed: the walk loops`,
        next.r,
      );
    cursors.add(cursor);
  }
  const seen = walked.map((x) => JSON.stringify(x));
  const dupes = seen.filter((x, i) => seen.indexOf(x) !== i).length;
  const same = all
    ? walked.length === all.length && walked.every((x, i) => isDeepStrictEqual(x, all[i]))
    : walked.length === total && dupes === 0;
  if (
    f.expect(
      "lists.cursor",
      same,
      `walking '${command.name}' ${k} at a time gave ${walked.length} items (${dupes} repeated); expected ${all ? `the ${all.length} of one page, in order` : `the ${total} meta.pagination.total counts, none repeated`}`,
      last ?? undefined,
    )
  )
    prove(s, "lists.cursor");
  proofOf(s).walked.add(command.name);
}

/** Lists no golden case drove: judged on the tool's own data, from its examples, else its required flags alone. */
export async function checkOwnLists(
  s: Subject,
  doc: DescribeDoc,
  drove: ReadonlySet<string>,
  fields: (s: Subject, c: CommandDoc, r: RunResult, env: Envelope) => Promise<void>,
): Promise<void> {
  await Promise.all(
    doc.commands
      // A list a golden case drove is judged here too while its bound is unproven: a case's data may be short.
      .filter((c) => c.isList && (!drove.has(c.name) || !proofOf(s).proven.has("lists.bounded")))
      .map(async (c) => {
        const candidates = [...(c.examples ?? []).map((e) => e.argv), requiredArgv(c)];
        for (const argv of candidates) {
          const full = [...words(c), ...without(argv, ["limit", "cursor", "fields"]), "--no-input"];
          if (await checkList(s, c, full)) {
            const r = await s.sandbox.run({ label: `${c.name} (its own data)`, argv: full });
            const env = inspectEnvelope(s, r, c);
            if (env?.ok && isObject(env.data) && firstField(c) !== null) await fields(s, c, r, env);
            return;
          }
        }
        if (!drove.has(c.name))
          for (const id of LIST_CHECKS)
            unproven(
              s,
              id,
              `'${c.name}' gave no list from its examples or its required flags alone, and no golden case runs it`,
            );
      }),
  );
}

/** After every list probe: a list check no data proved is *not proven*, with the reasons; --strict fails it. */
export function concludeLists(s: Subject, doc: DescribeDoc): void {
  const p = proofOf(s);
  if (!doc.commands.some((c) => c.isList)) return;
  for (const id of LIST_CHECKS) {
    if (p.proven.has(id) || s.findings.failed(id as CheckId)) continue;
    const why = [...new Set(p.why.get(id) ?? ["no list command was run on data"])].join("; ");
    // Unreadable envelopes are their own checks' finding: the lists they hid are not a second one.
    const unreadable = s.findings.failed("output.one-json") || s.findings.failed("envelope.shape");
    if (s.strict && !unreadable)
      s.findings.fail(id, `not proven: ${why}; give it data (a golden case, or an example that lists more)`);
    else s.findings.skip(id, `not proven: ${why}`);
  }
}

export const walkedLists = (s: Subject): ReadonlySet<string> => proofOf(s).walked;
