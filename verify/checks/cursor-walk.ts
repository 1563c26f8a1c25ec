/**
 * Kit extension `cursor`: following next_cursor, a few items at a time,
 * sees every item once and ends, within a bound: the total, or twice the
 * items seen. A cursor on the last page, a repeated one, or a walk that does
 * not end fails.
 */
import { isDeepStrictEqual } from "node:util";
import type { Subject } from "../base/subject.ts";
import type { RunResult } from "../base/sandbox.ts";
import type { CommandDoc, Envelope } from "../base/schemas.ts";
import { itemsOf } from "./list-items.ts";
import { prove } from "./list-proof.ts";

export type PageRun = (label: string, extra: string[]) => Promise<{ r: RunResult; env: Envelope | null }>;

interface Walk {
  readonly command: CommandDoc;
  /** Items per page, and the pages allowed before the walk counts as endless. */
  readonly k: number;
  readonly pageBound: number;
  readonly total: number;
  readonly totalKnown: boolean;
  readonly expected: number;
}

/** Pages by next_cursor; returns the items walked, or null when the walk already failed. */
async function pages(s: Subject, w: Walk, run: PageRun): Promise<{ items: unknown[]; last: RunResult | null } | null> {
  const f = s.findings;
  const name = w.command.name;
  const items: unknown[] = [];
  const cursors = new Set<string>();
  let cursor: string | null = null;
  let last: RunResult | null = null;
  for (let page = 1; ; page++) {
    if (page > w.pageBound) {
      const bound = w.totalKnown ? `meta.pagination.total is ${w.total}` : `twice the ${w.expected} seen`;
      f.fail(
        "lists.cursor",
        `walking '${name}' ${w.k} at a time did not end within ${w.pageBound - 1} pages (${items.length} items; ${bound})`,
        last ?? undefined,
      );
      return null;
    }
    const next = await run(`--limit ${w.k} page ${page}`, [
      "--limit",
      String(w.k),
      ...(cursor ? ["--cursor", cursor] : []),
    ]);
    last = next.r;
    if (!next.env?.ok) {
      f.fail("lists.cursor", `page ${page} of the cursor walk failed`, next.r);
      return null;
    }
    const got = itemsOf(next.env) ?? [];
    items.push(...got);
    cursor = next.env.meta.pagination?.next_cursor ?? null;
    if (!cursor) return { items, last };
    const endless =
      got.length === 0
        ? `page ${page} of '${name}' is empty but gives a next_cursor: the walk would never end`
        : w.totalKnown && items.length >= w.total
          ? `page ${page} of '${name}' ends the list (${items.length} of meta.pagination.total ${w.total}) but still gives a next_cursor`
          : cursors.has(cursor)
            ? `page ${page} of '${name}' gives a next_cursor already followed: the walk loops`
            : null;
    if (endless) {
      f.fail("lists.cursor", endless, next.r);
      return null;
    }
    cursors.add(cursor);
  }
}

/** Follows next_cursor and compares what it walked with one page of everything, or with the total. */
export async function walk(
  s: Subject,
  command: CommandDoc,
  run: PageRun,
  total: number,
  totalKnown: boolean,
): Promise<void> {
  // The walk is compared with one page holding everything only when one page can; otherwise with the total.
  const max = command.pagination?.max_limit ?? total;
  const onePage = total <= max ? await run(`--limit ${total}`, ["--limit", String(total)]) : null;
  const all = onePage?.env?.ok ? itemsOf(onePage.env) : null;
  const expected = totalKnown ? total : Math.max(total, all?.length ?? 0);
  const k = Math.max(1, Math.floor(Math.min(expected, max) / 3));
  const pageBound = Math.ceil((totalKnown ? expected : 2 * expected) / k) + 1;
  const walked = await pages(s, { command, k, pageBound, total, totalKnown, expected }, run);
  if (!walked) return;
  const seen = walked.items.map((x) => JSON.stringify(x));
  const dupes = seen.filter((x, i) => seen.indexOf(x) !== i).length;
  const same = all
    ? walked.items.length === all.length && walked.items.every((x, i) => isDeepStrictEqual(x, all[i]))
    : walked.items.length === total && dupes === 0;
  const instead = all
    ? `the ${all.length} of one page, in order`
    : `the ${total} meta.pagination.total counts, none repeated`;
  if (
    s.findings.expect(
      "lists.cursor",
      same,
      `walking '${command.name}' ${k} at a time gave ${walked.items.length} items (${dupes} repeated); expected ${instead}`,
      walked.last ?? undefined,
    )
  )
    prove(s, "lists.cursor");
}
