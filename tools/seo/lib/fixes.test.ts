/**
 * planFixes, in-process: the plan items seo makes from an audit of a real
 * site folder (a copy of examples/site, and small sites written here), their
 * edits applied to the real files: each edit leaves the rest of its file as
 * it was, each item's hashes are its file's before and after, and a re-audit
 * finds what was fixed gone and nothing new.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256 } from "agent-cli-kit";
import type { ItemInput } from "agent-cli-kit/writes";
import { auditSite, folderPages, siteOf, type TestPage } from "../../../test/helpers/seo-pages.ts";
import { applyEdits, type Edit } from "./edits.ts";
import { brokenPaths, planPages } from "./plan-run.ts";
import type { FixAction } from "./fix-actions.ts";

const ORIGIN = "https://harbour.example/";
const EXAMPLE = join(import.meta.dir, "..", "..", "..", "examples", "site");

/** A copy of the example site (its robots.txt keeps /private/ out of the crawl), and the pages its links miss. */
function exampleSite(): {
  dir: string;
  pages: Record<string, TestPage>;
  blocked: { url: string; linked_from: string[] }[];
} {
  const dir = mkdtempSync(join(tmpdir(), "seo-fixes-"));
  cpSync(EXAMPLE, dir, { recursive: true });
  const pages = Object.fromEntries(Object.entries(folderPages(dir)).filter(([path]) => !path.startsWith("private/")));
  for (const missing of ["abuot.html", "catalogue-2023.html", "blog/mending.html"]) pages[missing] = 404;
  return { dir, pages, blocked: [{ url: `${ORIGIN}private/prices.html`, linked_from: [ORIGIN] }] };
}

/** The audit of `pages` in `dir`, and the plan made from it. */
function planned(
  dir: string,
  pages: Record<string, TestPage>,
  opts: { lang?: string; only?: string[]; blocked?: { url: string; linked_from: string[] }[] } = {},
) {
  const site = siteOf(ORIGIN, pages, { blocked: opts.blocked ?? [] });
  const findings = auditSite(site.data, () => site.pages).findings;
  const byPage = Map.groupBy(findings, (f) => f.url);
  return {
    findings,
    ...planPages(
      dir,
      () => site.pages,
      (url) => byPage.get(url) ?? [],
      brokenPaths(findings),
      opts.lang,
      { only: opts.only as FixAction[] | undefined, findings: null, page: null },
    ),
  };
}

const itemFile = (i: ItemInput) => String(i.params.file);
const edits = (i: ItemInput) => i.params.edits as Edit[];

/** Applies each item's edits to its file in `dir`, in plan order, checking the item's hashes against the file as it stands. */
function applyAll(dir: string, items: readonly ItemInput[]): void {
  for (const item of items) {
    const path = join(dir, itemFile(item));
    const before = readFileSync(path, "utf8");
    expect(item.preconditions).toEqual([{ target: itemFile(item), version: sha256(before) }]);
    const after = applyEdits(before, edits(item));
    if (typeof after !== "string") throw new Error(`${item.reason}: edit ${after.misfit} no longer fits`);
    expect(sha256(after)).toBe(String(item.params.sha256_after));
    writeFileSync(path, after);
  }
}

/** The text outside the edits, before and after: equal when the edits touch nothing else. */
function untouched(before: string, list: readonly Edit[]): [string, string] {
  const after = applyEdits(before, list) as string;
  let kept = "";
  let keptAfter = "";
  let pos = 0;
  let shift = 0;
  for (const e of list) {
    kept += before.slice(pos, e.at);
    keptAfter += after.slice(pos + shift, e.at + shift);
    shift += e.insert.length - e.remove.length;
    pos = e.at + e.remove.length;
  }
  return [kept + before.slice(pos), keptAfter + after.slice(pos + shift)];
}

describe("the example site's plan", () => {
  test("fixes what it can, file by file, and says what it left out", () => {
    const { dir, pages, blocked } = exampleSite();
    const plan = planned(dir, pages, { blocked });
    expect(plan.items.map((i) => `${itemFile(i)} ${i.action}`)).toEqual([
      "about.html set-lang",
      "about.html add-viewport",
      "about.html add-canonical",
      "about.html add-meta-description",
      "blog/index.html remove-duplicate-canonical",
      "index.html fix-broken-link",
      "products.html add-canonical",
    ]);
    expect(plan.items.find((i) => i.action === "fix-broken-link")?.params).toMatchObject({
      from: "/abuot.html",
      to: "/about.html",
    });
    // The duplicate canonical that goes is the one not naming the page itself.
    expect(edits(plan.items[4]!).map((e) => e.remove.trim())).toEqual([
      '<link rel="canonical" href="https://harbour.example/journal/">',
    ]);
    // What it cannot fix it says, finding by finding: a relative canonical, and two links to pages that never existed.
    const left = (file: string, action: FixAction, reason: string) => ({
      file,
      action,
      reason: expect.stringContaining(reason),
      finding: expect.stringMatching(/^f-/),
    });
    expect(plan.skipped).toEqual([
      left("blog/first-harvest.html", "remove-duplicate-canonical", "'/blog/first-harvest.html' is relative"),
      left("blog/sharpening.html", "fix-broken-link", "no page on the site is a clear match for /blog/mending.html"),
      left("index.html", "fix-broken-link", "no page on the site is a clear match for /catalogue-2023.html"),
    ]);
    rmSync(dir, { recursive: true, force: true });
  });

  test("each edit leaves the rest of its file byte for byte; each item's hashes are its file's before and after it", () => {
    const { dir, pages, blocked } = exampleSite();
    const { items } = planned(dir, pages, { blocked });
    for (const item of items) {
      const [kept, keptAfter] = untouched(readFileSync(join(dir, itemFile(item)), "utf8"), edits(item));
      expect(keptAfter).toBe(kept);
      applyAll(dir, [item]);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test("applied, a re-audit finds each fixed finding gone and no finding the site did not have", () => {
    const { dir, pages, blocked } = exampleSite();
    const before = planned(dir, pages, { blocked });
    applyAll(dir, before.items);
    const again = { ...pages, ...Object.fromEntries(Object.entries(folderPages(dir)).filter(([p]) => p in pages)) };
    const after = planned(dir, again, { blocked });
    const ids = (fs: typeof after.findings) =>
      fs.map((f) => `${f.rule} ${f.url.replace(ORIGIN, "/")}${f.rule === "broken-link" ? ` ${f.detail.href}` : ""}`);
    expect(ids(after.findings).filter((f) => !ids(before.findings).includes(f))).toEqual([]);
    expect(ids(before.findings).filter((f) => !ids(after.findings).includes(f))).toEqual([
      `broken-link / ${ORIGIN}abuot.html`,
      "canonical /blog/",
      "meta-description /about.html",
      "html-lang /about.html",
      "viewport /about.html",
      "canonical-missing /about.html",
      "canonical-missing /products.html",
    ]);
    // Nothing is left to plan for what the plan fixed.
    expect(after.items).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });

  test("`only` plans those kinds of fix alone; the language set is the flag's, else the one most pages use", () => {
    const { dir, pages, blocked } = exampleSite();
    const only = planned(dir, pages, { blocked, only: ["set-lang", "add-viewport"] });
    expect(only.items.map((i) => i.action)).toEqual(["set-lang", "add-viewport"]);
    expect(edits(only.items[0]!)[0]!.insert).toBe(' lang="en"');
    const flagged = planned(dir, pages, { blocked, only: ["set-lang"], lang: "en-GB" });
    expect(edits(flagged.items[0]!)[0]!.insert).toBe(' lang="en-GB"');
    rmSync(dir, { recursive: true, force: true });
  });
});

/** A small site folder of `files`, each a page of the site at its path. */
function smallSite(files: Record<string, string | Uint8Array>): { dir: string; pages: Record<string, TestPage> } {
  const dir = mkdtempSync(join(tmpdir(), "seo-fixes-"));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
  return { dir, pages: folderPages(dir) };
}

const HEADED = (lang: string, body: string) =>
  `<!doctype html>\n<html${lang}>\n<head>\n  <title>Tides and ferries of the harbour</title>\n</head>\n<body>\n${body}\n</body>\n</html>\n`;
const FERRIES =
  "<main><p>Ferries leave the old harbour every hour between six in the morning and ten at night. Tickets are sold at the kiosk by the pier and on board. Bicycles travel free outside the rush hours.</p></main>";

describe("a small site's plan", () => {
  test("a page not in UTF-8 is left as it is, and the plan says why", () => {
    const latin1 = Buffer.from(HEADED("", "<p>Caf\u00e9 by the harbour.</p>"), "latin1");
    const { dir, pages } = smallSite({ "index.html": latin1 });
    const plan = planned(dir, pages);
    expect([plan.items, plan.skipped]).toEqual([
      [],
      [{ file: "index.html", action: null, reason: "it is windows-1252, not UTF-8; seo edits UTF-8 files only" }],
    ]);
    expect(readFileSync(join(dir, "index.html")).equals(latin1)).toBe(true);
  });

  test("descriptions are whole sentences of the page's main text, no two alike; a page of too little prose gets none, and why", () => {
    const { dir, pages } = smallSite({
      "a.html": HEADED(' lang="en"', FERRIES),
      "b.html": HEADED(' lang="en"', FERRIES),
      "c.html": HEADED(' lang="en"', "<main><p>Contact us.</p></main>"),
    });
    const plan = planned(dir, pages, { only: ["add-meta-description"] });
    const described = plan.items.map((i) => /content="([^"]*)"/.exec(edits(i)[0]!.insert)![1]!);
    expect(described).toHaveLength(2);
    expect(new Set(described).size).toBe(2);
    for (const d of described) expect(FERRIES).toContain(d);
    expect(plan.skipped).toEqual([
      {
        file: "c.html",
        action: "add-meta-description",
        reason: "its main content has too little prose for a description (2 words; at least 12)",
      },
    ]);
  });

  test("a broken relative link is pointed at the one close page, written relative; two as close are left alone", () => {
    const { dir, pages } = smallSite({
      "guides/all.html": HEADED(' lang="en"', '<a href="ferrys.html">Ferries</a> <a href="tide.html">Tides</a>'),
      "guides/ferries.html": HEADED(' lang="en"', "<p>Ferries.</p>"),
      "guides/tides.html": HEADED(' lang="en"', "<p>Tides.</p>"),
      "guides/tile.html": HEADED(' lang="en"', "<p>Tiles.</p>"),
    });
    const plan = planned(
      dir,
      { ...pages, "guides/ferrys.html": 404, "guides/tide.html": 404 },
      { only: ["fix-broken-link"] },
    );
    expect(plan.items.map((i) => [i.params.from, i.params.to])).toEqual([["ferrys.html", "ferries.html"]]);
  });

  // Made relative to dirname("/guides/"), which is "/", the fixed link read "guides/ferries.html" and resolved to /guides/guides/.
  test("a broken relative link on a folder's index page is pointed at the close page relative to that folder", () => {
    const { dir, pages } = smallSite({
      "guides/index.html": HEADED(' lang="en"', '<a href="ferrys.html">Ferries</a>'),
      "guides/ferries.html": HEADED(' lang="en"', "<p>Ferries.</p>"),
    });
    const plan = planned(dir, { ...pages, "guides/ferrys.html": 404 }, { only: ["fix-broken-link"] });
    const to = String(plan.items[0]?.params.to);
    expect([to, new URL(to, `${ORIGIN}guides/`).href]).toEqual(["ferries.html", `${ORIGIN}guides/ferries.html`]);
  });

  test("a page gone since the crawl cannot be planned: INVALID_INPUT, saying to crawl again", () => {
    const { dir, pages } = smallSite({ "index.html": HEADED("", "<p>Tides.</p>") });
    rmSync(join(dir, "index.html"));
    expect(() => planned(dir, pages)).toThrow(
      expect.objectContaining({ code: "INVALID_INPUT", hint: "crawl the folder again, then plan" }),
    );
  });
});
