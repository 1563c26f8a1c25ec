import { describe, expect, test } from "bun:test";
import { KitError } from "../../src/kit/output/errors.ts";
import { decodeCursor, paginate, queryFingerprint } from "../../src/kit/lists/paginate.ts";

const items = Array.from({ length: 23 }, (_, i) => i);
const fp = queryFingerprint("thing list", { severity: "low" });

describe("pagination", () => {
  test("following next_cursor returns every item exactly once, in order", () => {
    const seen: number[] = [];
    let offset = 0;
    for (;;) {
      const page = paginate(items, { limit: 5, maxLimit: 100, offset, fingerprint: fp });
      seen.push(...page.items);
      if (!page.pagination.next_cursor) break;
      expect(page.truncationHint).toContain("--cursor=");
      expect(page.truncationHint).toContain("--limit=");
      offset = decodeCursor(page.pagination.next_cursor, fp);
    }
    expect(seen).toEqual(items);
  });

  test("cursors are stable: the same query over the same data gives the same cursor", () => {
    const a = paginate(items, { limit: 5, maxLimit: 100, offset: 0, fingerprint: fp });
    const b = paginate(items, {
      limit: 5,
      maxLimit: 100,
      offset: 0,
      fingerprint: queryFingerprint("thing list", { severity: "low" }),
    });
    expect(a.pagination.next_cursor).toBe(b.pagination.next_cursor);
  });

  test("a cursor from a different query is refused", () => {
    const { pagination } = paginate(items, { limit: 5, maxLimit: 100, offset: 0, fingerprint: fp });
    const other = queryFingerprint("thing list", { severity: "high" });
    expect(() => decodeCursor(pagination.next_cursor!, other)).toThrow(KitError);
  });

  test("a page a command cut from its store itself pages exactly as the whole list would, and a cursor past its end is refused", () => {
    for (const offset of [0, 5, 20, 23]) {
      const req = { limit: 5, maxLimit: 100, offset, fingerprint: fp };
      const cut = paginate({ total: items.length, items: items.slice(offset, offset + 5) }, req);
      expect(cut).toEqual(paginate(items, req));
    }
    expect(() => paginate({ total: 3, items: [] }, { limit: 5, maxLimit: 100, offset: 5, fingerprint: fp })).toThrow(
      "past the end of the list (3 items)",
    );
  });

  test("garbage is not a cursor", () => {
    expect(() => decodeCursor("not-a-cursor", fp)).toThrow("not a cursor this tool issued");
  });

  test("the last page has no cursor and no truncation", () => {
    const page = paginate(items, { limit: 50, maxLimit: 100, offset: 0, fingerprint: fp });
    expect(page.pagination).toEqual({ limit: 50, returned: 23, total: 23, next_cursor: null });
    expect(page.truncationHint).toBeNull();
  });
});
