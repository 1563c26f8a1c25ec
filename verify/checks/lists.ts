/**
 * Bounded lists (contract §6) and cursors (kit extension `cursor`), judged on
 * real data: a golden case's, the tool's own (its examples, or its required
 * flags alone), or data verify made with the tool's own write path
 * (own-lists.ts). A check that no data could prove is reported *not proven*.
 */
import { inspectEnvelope } from "../base/inspect.ts";
import { holds, type Subject } from "../base/subject.ts";
import type { RunResult } from "../base/sandbox.ts";
import type { CommandDoc, Envelope } from "../base/schemas.ts";
import { type PageRun, walk } from "./cursor-walk.ts";
import { declaredDefault, isObject, itemsOf, without } from "./list-items.ts";
import { judgeLimitOne } from "./limit-honoured.ts";
import { prove, unproven } from "./list-proof.ts";
import { longestArray } from "../base/bounded.ts";

/** Where a list runs: a golden case's or a workspace's folder and environment. */
export interface Where {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/** What one list probe saw: no list at all, or a list whose default bound it did (or did not) get to show. */
export type Listed =
  | { readonly listed: false }
  | { readonly listed: true; readonly boundShown: boolean; readonly bound: number };

/** The default page: at most the declared default (or the page's own limit); proven only on a longer list. */
function judgeBound(s: Subject, command: CommandDoc, dflt: { r: RunResult; env: Envelope }): Listed {
  const pg = dflt.env.meta.pagination!;
  const items = itemsOf(dflt.env);
  const declared = declaredDefault(command);
  const bound = declared ?? pg.limit;
  const within = pg.limit === bound && pg.returned <= bound && items !== null && items.length <= bound;
  if (!within) {
    s.findings.fail(
      "lists.bounded",
      `without --limit, '${command.name}' returned ${items?.length ?? "?"} items with meta.pagination.limit ${pg.limit}; expected at most ${bound}${declared ? " (its declared default)" : ""}`,
      dflt.r,
    );
    return { listed: true, boundShown: true, bound };
  }
  if (pg.total !== null && pg.total > bound) {
    prove(s, "lists.bounded");
    return { listed: true, boundShown: true, bound };
  }
  unproven(
    s,
    "lists.bounded",
    `'${command.name}' held ${pg.total ?? pg.returned} item(s), within its default bound ${bound}: a bound shows only on a longer list`,
  );
  return { listed: true, boundShown: false, bound };
}

const TRUNCATION = 'must set truncated and a truncation_hint naming a flag (e.g. "--limit=100")';
const saysCut = (env: Envelope): boolean =>
  env.meta.truncated === true && /--[a-z]/.test(env.meta.truncation_hint ?? "");

/**
 * contract §2, §6: a page that holds the whole list (--limit its total) says
 * nothing is left: not truncated, and no next_cursor (the cursor extension's
 * finding where the tool claims it, else the truncation one).
 */
async function judgeWhole(s: Subject, command: CommandDoc, total: number, run: PageRun): Promise<void> {
  const max = command.pagination?.max_limit;
  if (max !== undefined && total > max) return;
  const whole = await run(`--limit ${total} (the whole list)`, ["--limit", String(total)]);
  const pg = whole.env?.ok ? whole.env.meta.pagination : null;
  // Refused, or capped below its total (a page limit of its own): not a page that holds everything.
  if (!whole.env || !pg || pg.returned < total) return;
  const f = s.findings;
  f.expect(
    "lists.truncation",
    whole.env.meta.truncated !== true,
    `--limit ${total} returned all ${total} items of '${command.name}', nothing left, but says truncated: true`,
    whole.r,
  );
  f.expect(
    holds(s, "cursor") ? "lists.cursor" : "lists.truncation",
    pg.next_cursor === null,
    `--limit ${total} returned all ${total} items of '${command.name}', nothing left, but gives a next_cursor`,
    whole.r,
  );
}

/** A cut list says so: the default page of a longer list, then --limit 1; with the cursor extension, a walk. */
async function judgeCut(s: Subject, command: CommandDoc, dflt: { r: RunResult; env: Envelope }, run: PageRun) {
  const f = s.findings;
  const pg = dflt.env.meta.pagination!;
  const total = pg.total ?? null;
  if (total !== null && total > pg.returned) {
    const what = `a cut list (${pg.returned} of ${total}) ${TRUNCATION}`;
    if (f.expect("lists.truncation", saysCut(dflt.env), what, dflt.r)) prove(s, "lists.truncation");
  }
  if ((total ?? pg.returned) < 2) {
    unproven(s, "lists.truncation", `'${command.name}' held fewer than two items: nothing to cut`);
    unproven(s, "lists.cursor", `'${command.name}' held fewer than two items: nothing to page`);
    return;
  }
  const cut = await run("--limit 1", ["--limit", "1"]);
  const before = longestArray(dflt.env.data);
  if (cut.env && before && before.length > 1) judgeLimitOne(s, command, before, cut.r, cut.env);
  if (cut.env?.ok && f.expect("lists.truncation", saysCut(cut.env), `--limit 1 of a longer list ${TRUNCATION}`, cut.r))
    prove(s, "lists.truncation");
  if (total !== null) await judgeWhole(s, command, total, run);
  if (!holds(s, "cursor")) return;
  if (cut.env?.ok)
    f.expect(
      "lists.cursor",
      cut.env.meta.pagination?.next_cursor != null,
      "--limit 1 of a longer list must give a next_cursor",
      cut.r,
    );
  await walk(s, command, run, total ?? pg.returned, pg.total !== null);
}

/**
 * Bounded default (at most the declared default, or the page's own limit),
 * a cut page that says so, and (extension cursor) a walk by next_cursor that
 * sees every item once and ends.
 */
export async function checkList(
  s: Subject,
  command: CommandDoc,
  argv: readonly string[],
  where: Where = {},
): Promise<Listed> {
  const base = without(argv, ["limit", "cursor", "fields"]);
  const run: PageRun = async (label, extra) => {
    const r = await s.sandbox.run({ label: `${command.name} ${label}`, argv: [...base, ...extra], ...where });
    return { r, env: inspectEnvelope(s, r, command) };
  };
  const dflt = await run("without --limit", []);
  if (!dflt.env?.ok || !isObject(dflt.env.data)) return { listed: false };
  // Having meta.pagination proves nothing by itself: a bound is proven on a longer list (judgeBound), or not proven.
  if (dflt.env.meta.pagination === null) {
    s.findings.fail(
      "lists.bounded",
      `'${command.name}' returned a list without meta.pagination (expected { limit, returned, total, next_cursor })`,
      dflt.r,
    );
    return { listed: true, boundShown: true, bound: declaredDefault(command) ?? 1 };
  }
  const page = { r: dflt.r, env: dflt.env };
  const listed = judgeBound(s, command, page);
  await judgeCut(s, command, page, run);
  return listed;
}
