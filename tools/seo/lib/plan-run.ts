/**
 * Turns an audit of a static-site folder into plan items, in bounded memory:
 * two passes over extract's pages. The first gathers what fixes need of the
 * whole site: its commonest language, a 64-bit hash of every description it
 * has (lower-cased: uniqueness needs no more), and, for the paths broken
 * links name, the closest page path. The second reads each page beside its
 * findings (findings-by-page.ts) and plans its fixes. Items on one file are
 * planned in order against the text the previous ones leave, each with the
 * file's hash before and after it; the plan lists them by file. What is held: those hashes, the broken
 * paths, and the plan's own items.
 */
import { readFileSync } from "node:fs";
import type { ItemInput } from "agent-cli-kit/writes";
import { KitError, resolveWithin, sha256 } from "agent-cli-kit";
import type { ExtractedPage } from "./page-schema.ts";
import type { Finding } from "./schemas.ts";
import type { AuditData, ExtractData } from "./artifacts.ts";
import { BrokenTargets } from "./broken-targets.ts";
import { applyEdits } from "./edits.ts";
import { editBeyond } from "./fix-effects.ts";
import { FindingsByPage } from "./findings-by-page.ts";
import { readFindings } from "./findings.ts";
import { FIX_RULES, type Fix, fixesFor, type SitePlan } from "./fixes.ts";
import { counted, readPages } from "./page-store.ts";
import { type Document, parseDocument } from "./dom.ts";
import { locate, type Located } from "./source.ts";
import { inScope, onPage, type PlanScope, type Skipped, unanswered } from "./plan-scope.ts";

export type { Skipped } from "./plan-scope.ts";

/** Bytes to text only when they are UTF-8, a byte order mark kept: the text written back is the same bytes. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LANG_TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
/** 64 bits of a text: two different descriptions share one about once in 10^9 sites of 100,000 pages. */
const hashOf = (text: string): bigint => BigInt(Bun.hash(text.trim().toLowerCase()));

export function planSite(
  dir: string,
  extract: ExtractData,
  audit: AuditData,
  langFlag: string | undefined,
  scope: PlanScope,
  pagesRead: (n: number) => void = () => {},
): { items: ItemInput[]; skipped: Skipped[] } {
  const judged = audit.extract_pages;
  if (judged && extract.pages_file && judged !== extract.pages_file.sha256)
    throw new KitError("INVALID_ARTIFACT", `audit.json in ${dir} was made from other pages than extract.json's`, {
      hint: `run \`seo audit\` again with --run-dir ${dir}`,
    });
  const pages = () => counted(readPages<ExtractedPage>(dir, "extract", extract), pagesRead);
  const broken = brokenPaths(readFindings(dir, audit, (r) => r === "broken-link"));
  const named = scope.findings ? namedRules(dir, audit, scope.findings) : [];
  const findings = new FindingsByPage(dir, audit, [...new Set([...FIX_RULES, ...named])]);
  const root = extract.source.kind === "dir" ? extract.source.dir : "";
  const planned = planPages(root, pages, (url) => findings.of(url), broken, langFlag, scope);
  findings.finish();
  return planned;
}

/** The rules of the findings named by id; an id no finding has is NOT_FOUND. */
function namedRules(dir: string, audit: AuditData, ids: ReadonlySet<string>): string[] {
  const rules = new Map<string, string>();
  for (const f of readFindings(dir, audit)) if (ids.has(f.id)) rules.set(f.id, f.rule);
  const unknown = [...ids].filter((id) => !rules.has(id));
  if (unknown.length > 0)
    throw new KitError("NOT_FOUND", `no finding has the id ${unknown.join(", ")}`, {
      got: unknown,
      hint: `\`seo finding list --run-dir ${dir}\` shows each finding's id`,
    });
  return [...rules.values()];
}

/** The paths a site's broken links name as written in its pages (a fix repoints those): from broken-link findings. */
export const brokenPaths = (findings: Iterable<Finding>): string[] =>
  Iterator.from(findings)
    .filter((f) => f.rule === "broken-link" && typeof f.detail.raw === "string")
    .map((f) => new URL(String(f.detail.href)).pathname)
    .toArray();

/**
 * The plan for the pages of the folder `root`: `findingsOf` answers each
 * page's findings, asked once per page in the pages' order; `broken` names the
 * paths broken links point to.
 */
export function planPages(
  root: string,
  pages: () => Iterable<ExtractedPage>,
  findingsOf: (url: string) => Finding[],
  broken: Iterable<string>,
  langFlag: string | undefined,
  scope: PlanScope,
): { items: ItemInput[]; skipped: Skipped[] } {
  const planned = planFixes(root, pages, findingsOf, { ...siteFacts(pages(), broken), langFlag, scope });
  if (scope.page !== null && !planned.found)
    throw new KitError("NOT_FOUND", `no crawled page has the URL ${scope.page}`, {
      got: scope.page,
      hint: "`seo page list` shows every URL",
    });
  return { items: planned.items, skipped: planned.skipped };
}

interface SiteFacts {
  lang: string | null;
  descriptions: Set<bigint>;
  targets: BrokenTargets;
}

/** The first pass: the commonest language, every description's hash, the closest page path to each broken one. */
function siteFacts(pages: Iterable<ExtractedPage>, broken: Iterable<string>): SiteFacts {
  const targets = new BrokenTargets();
  for (const path of broken) targets.want(path);
  const langs = new Map<string, number>();
  const descriptions = new Set<bigint>();
  for (const p of pages) {
    if (p.lang && LANG_TAG.test(p.lang)) langs.set(p.lang, (langs.get(p.lang) ?? 0) + 1);
    if (p.meta_description) descriptions.add(hashOf(p.meta_description));
    if (targets.size > 0 && p.status === 200 && p.file?.endsWith(".html")) targets.offer(new URL(p.final_url).pathname);
  }
  let lang: string | null = null;
  for (const [l, n] of langs) if (lang === null || n > langs.get(lang)!) lang = l;
  return { lang, descriptions, targets };
}

/** The second pass: each page's fixes, as the pages come. */
function planFixes(
  root: string,
  pages: () => Iterable<ExtractedPage>,
  findingsOf: (url: string) => Finding[],
  facts: SiteFacts & { langFlag: string | undefined; scope: PlanScope },
): { items: ItemInput[]; skipped: Skipped[]; found: boolean } {
  const { scope } = facts;
  let found = false;
  const items: ItemInput[] = [];
  const skipped: Skipped[] = [];
  let current = "";
  const site: SitePlan = {
    lang: facts.langFlag ?? facts.lang ?? "en",
    targetFor: (path) => facts.targets.target(path),
    taken: (d) => facts.descriptions.has(hashOf(d)),
    claim: (d) => facts.descriptions.add(hashOf(d)),
    skip: (action, reason) => skipped.push({ file: current, action, reason }),
  };
  const planned = new Set<bigint>(); // one file reached by two URLs is planned once
  for (const page of pages()) {
    const mine = findingsOf(page.url);
    if (!onPage(scope, page)) continue;
    found = true;
    const scoped = inScope(scope, mine);
    if (page.file && page.status === 200 && planned.has(hashOf(page.file))) continue;
    const [itemsFrom, skippedFrom] = [items.length, skipped.length];
    if (page.file && page.status === 200) {
      planned.add(hashOf(page.file));
      current = page.file;
      const fixes = fixesFor(page, scoped, site).filter((f) => !scope.only || scope.only.includes(f.action));
      if (fixes.length > 0) planPage(root, page, fixes, items, skipped);
    }
    const answered = { items: items.slice(itemsFrom), skipped: skipped.slice(skippedFrom) };
    skipped.push(...unanswered(page, scoped, answered));
  }
  // In the files' order, as a person reads a folder (each file's items stay in the order they were planned).
  const fileOf = (i: ItemInput) => String(i.params.file);
  return {
    items: items.sort((a, b) => fileOf(a).localeCompare(fileOf(b))),
    skipped: skipped.sort((a, b) => a.file.localeCompare(b.file)),
    found,
  };
}

/** The page's file, read, and its fixes as items, each against the text the previous one leaves. */
function planPage(root: string, page: ExtractedPage, fixes: Fix[], items: ItemInput[], skipped: Skipped[]): void {
  const file = page.file!;
  let bytes: Buffer;
  try {
    bytes = readFileSync(resolveWithin(root, file, "the site folder"));
  } catch (e) {
    throw new KitError("INVALID_INPUT", `${file} cannot be planned: ${(e as Error).message}`, {
      hint: "crawl the folder again, then plan",
    });
  }
  // Edits are made on the text and written back as UTF-8: a page in another encoding is left as it is, and said so.
  let text: string | null = null;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {}
  if (text === null || (page.encoding && page.encoding.name !== "utf-8")) {
    skipped.push({
      file,
      action: null,
      reason: `it is ${page.encoding?.name ?? "not valid UTF-8"}, not UTF-8; seo edits UTF-8 files only`,
    });
    return;
  }
  // Parsed and located again only after a fix changed the text; the tree located from is the one the edit is judged
  // against (a page is parsed once per fix, not twice: on a large page the parse is most of the plan's time).
  let located: { doc: Document; at: Located } | null = null;
  for (const fix of fixes) {
    if (!located) {
      const doc = parseDocument(text);
      located = { doc, at: locate(text, doc) };
    }
    const edits = fix.edits(text, located.at);
    if (!edits || edits.length === 0) continue;
    const after = applyEdits(text, edits);
    if (typeof after !== "string") continue;
    const params = { file, ...fix.extra, edits };
    // The gate's own judgement, as a browser reads the page: an edit it would refuse is never planned.
    const beyond = editBeyond(fix.action, text, after, params, edits, located.doc);
    if (beyond.length > 0) {
      skipped.push({ file, action: fix.action, reason: `the edit would do more than ${fix.action} may: ${beyond[0]}` });
      continue;
    }
    located = null;
    items.push({
      action: fix.action,
      reason: `${file}: ${fix.reason}`,
      params: { ...params, sha256_after: sha256(after) },
      preconditions: [{ target: file, version: sha256(text) }],
      projected_impact: { files: 1, bytes_changed: edits.reduce((n, e) => n + e.remove.length + e.insert.length, 0) },
    });
    text = after;
  }
}
