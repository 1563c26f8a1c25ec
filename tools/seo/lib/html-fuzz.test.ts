/** The gate's judgement of seo edits, fuzzed in-process (html-fuzz.ts); the soak runs the same with ≥ 10,000 cases. */
import { describe, expect, test } from "bun:test";
import { executableFacts } from "./html-fuzz-oracle.ts";
import { runHtmlFuzz } from "./html-fuzz.ts";

describe("seo edits the gate approves change nothing a browser runs (fast-check, seeded)", () => {
  test("300 generated page × edit cases: no approved edit gains or changes a script, handler or executable element", () => {
    const run = runHtmlFuzz(300, 43);
    console.log(`html fuzz: ${run.cases} cases, ${run.approved} approved, ${run.escapes.length} escapes`);
    expect(run.escapes.map((c) => ({ action: c.action, page: c.page, edits: c.edits }))).toEqual([]);
    // Not vacuous: the gate approves a good share of the cases, and refuses others.
    expect(run.approved).toBeGreaterThan(run.cases / 10);
    expect(run.approved).toBeLessThan(run.cases);
  }, 120_000);

  test("the oracle sees what a browser runs: a script's text changed, a handler gained, inside template contents too", () => {
    const page = `<script>/*<!--<script></script><link rel="canonical" href="x">*/alert(1)</script>`;
    expect(executableFacts(page.replace('<link rel="canonical" href="x">', ""))).not.toEqual(executableFacts(page));
    expect(executableFacts(`<div title='x'>`)).not.toEqual(executableFacts(`<div title='x'onfocus='y'>`));
    expect(executableFacts("<template><b>x</b></template>")).not.toEqual(
      executableFacts("<template><b onclick=y>x</b></template>"),
    );
  });
});
