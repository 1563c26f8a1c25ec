/**
 * The compiled seo judges the edge corpus (test/fixtures/seo-edges) exactly as
 * its rules do in-process, finding for finding, ids included: the corpus's
 * verdicts against Lighthouse's (lighthouse.json, recorded by
 * scripts/lighthouse-parity.ts --edges --record) are checked in-process,
 * beside the rules (tools/seo/lib/rules.test.ts); this is what only the
 * binary shows, its crawl of the folder and its build of those rules.
 */
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, root, run } from "../helpers/bin.ts";
import { auditSite, folderPages, siteOf } from "../helpers/seo-pages.ts";

const EDGES = join(root, "test", "fixtures", "seo-edges");
const ORIGIN = "http://127.0.0.1/";

test("the binary's crawl, extract and audit of the corpus find what the rules find in-process, ids and all", async () => {
  const dir = mkdtempSync(join(tmpdir(), "seo-edges-"));
  for (const stage of [["crawl", "--dir", EDGES, "--base-url", ORIGIN], ["extract"], ["audit"]])
    expect((await run(binary("seo"), [...stage, "--run-dir", dir])).code).toBe(0);
  const { data, pages } = siteOf(ORIGIN, folderPages(EDGES));
  const listed = await run(binary("seo"), ["finding", "list", "--run-dir", dir, "--limit", "1000", "--json"]);
  // The same findings; each rule's come in the pages' order, which is the crawl's for the binary and the folder's here.
  const byId = (fs: readonly { id: string }[]) => [...fs].sort((a, b) => (a.id < b.id ? -1 : 1));
  const inProcess = auditSite(data, () => pages).findings;
  expect(byId(listed.json.data.items)).toEqual(byId(inProcess));
  expect(listed.json.data.items.map((f: { rule: string }) => f.rule)).toEqual(inProcess.map((f) => f.rule));
}, 120_000);
