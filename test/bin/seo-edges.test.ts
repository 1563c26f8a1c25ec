/**
 * seo judges each one-case page of the edge corpus (test/fixtures/seo-edges)
 * as Lighthouse did when scripts/lighthouse-parity.ts --edges --record ran it
 * (lighthouse.json): for every audit seo has a rule of, Lighthouse's fail is
 * a finding of that rule on that page, and its pass or "not applicable" is none.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, root, run } from "../helpers/bin.ts";

const seo = binary("seo");
const EDGES = join(root, "test", "fixtures", "seo-edges");
const cases = JSON.parse(readFileSync(join(EDGES, "cases.json"), "utf8")).cases as {
  file: string;
  audit: string;
  about: string;
}[];
const recorded = JSON.parse(readFileSync(join(EDGES, "lighthouse.json"), "utf8")) as {
  lighthouse: string;
  verdicts: Record<string, Record<string, "pass" | "fail" | "n/a">>;
};
const ORIGIN = "http://127.0.0.1/";

let fails: Set<string>;
let rules: Set<string>;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "seo-edges-"));
  for (const stage of [["crawl", "--dir", EDGES, "--base-url", ORIGIN], ["extract"], ["audit"]])
    expect((await run(seo, [...stage, "--run-dir", dir])).code).toBe(0);
  const listed = await run(seo, ["finding", "list", "--run-dir", dir, "--limit", "1000", "--json"]);
  fails = new Set(
    listed.json.data.items.map(
      (f: { url: string; rule: string }) => `${f.url.replace(ORIGIN, "") || "index.html"} ${f.rule}`,
    ),
  );
  const described = (await run(seo, ["audit", "--describe"])).json;
  rules = new Set(
    described.commands.find((c: { name: string }) => c.name === "audit").input_schema.properties.rule.enum,
  );
}, 120_000);

describe(`the edge corpus, judged as Lighthouse ${recorded.lighthouse} judged it`, () => {
  for (const c of cases)
    test(`${c.file}: ${c.about} (${c.audit}: Lighthouse says ${recorded.verdicts[c.file]?.[c.audit]})`, () => {
      const lighthouse = recorded.verdicts[c.file];
      expect(lighthouse?.[c.audit]).toBeDefined();
      // Every audit Lighthouse judged on the page, not only the one the case is about.
      const got = Object.keys(lighthouse!)
        .filter((audit) => rules.has(audit))
        .map((audit) => [
          audit,
          fails.has(`${c.file} ${audit}`) ? "fail" : lighthouse![audit] === "n/a" ? "n/a" : "pass",
        ]);
      expect(Object.fromEntries(got)).toEqual(
        Object.fromEntries(Object.entries(lighthouse!).filter(([audit]) => rules.has(audit))),
      );
    });
});
