/**
 * The text renderer (output/text.ts), in-process: what a person at a
 * terminal reads of an envelope. Ids, enum values and codes are never cut;
 * free text wraps first; a list cell (the commands of a `next`) shows its
 * values; `meta.next` is printed.
 */
import { describe, expect, test } from "bun:test";
import { renderTable, renderText } from "../../src/kit/output/text.ts";

const style = (width: number) => ({ colour: false, width });
const rows = [
  {
    id: "f-53042cf8a61f",
    rule: "http-status-code",
    severity: "high",
    category: "indexability",
    url: "https://harbour.example/blog/first-harvest.html",
    message: "links to https://harbour.example/catalogue-2023.html, which answers 404 when it is asked for",
  },
  {
    id: "f-2bc4ce52e819",
    rule: "canonical-offsite",
    severity: "medium",
    category: "indexability",
    url: "https://harbour.example/",
    message: "the canonical points off the site",
  },
];

describe("tables", () => {
  for (const width of [80, 120])
    test(`${width} columns: every line fits; ids, rules, severities and paths whole; every message complete`, () => {
      const text = renderTable(rows, style(width));
      for (const line of text.split("\n")) expect(line.length).toBeLessThanOrEqual(width);
      for (const r of rows) {
        for (const whole of [r.id, r.rule, r.severity, r.category, new URL(r.url).pathname])
          expect(text).toContain(whole);
        // Read back across its wrapped lines (a word longer than the column is split), the message is all there.
        expect(text.replace(/\s+/g, "")).toContain(r.message.replace(/\s+/g, ""));
      }
    });

  test("a list cell shows its values, one a line, never dropped", () => {
    const text = renderTable(
      [
        { step: 1, commands: ["seo extract --run-dir /tmp/r", "seo audit --run-dir /tmp/r"] },
        { step: 2, commands: [] },
      ],
      style(80),
    );
    expect(text).toContain("seo extract --run-dir /tmp/r");
    expect(text).toContain("seo audit --run-dir /tmp/r");
    expect(text.split("\n")[0]).toContain("COMMANDS");
  });
});

describe("an envelope", () => {
  test("meta.next is printed, each command on a line, on stderr", () => {
    const out = renderText(
      {
        ok: true,
        contract_version: 0,
        tool: "gate",
        command: "review",
        data: { decision: "approved" },
        error: null,
        meta: { next: ["seo apply --plan ./run"], truncation_hint: null } as never,
      },
      style(80),
    );
    expect(out.stdout).toContain("decision: approved");
    expect(out.stderr).toContain("next: seo apply --plan ./run");
  });
});
