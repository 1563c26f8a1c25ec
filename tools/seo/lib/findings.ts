/**
 * Reading an audit's findings in bounded memory: shared by `audit`, `finding
 * list/get`, `page list/get`, `score`, `synthesize` and `plan`. From the
 * findings file's sections (finding-store.ts), each checked against its own
 * hash as it is read; or from an audit.json of an older seo that holds its
 * findings inline.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { CutPage } from "agent-cli-kit";
import { RULES, SEVERITY_RANK, type RuleId } from "./rules-meta.ts";
import type { Finding, Severity } from "./schemas.ts";
import type { AuditData } from "./artifacts.ts";
import { type FindingsFile, ruleOrder } from "./finding-store.ts";
import { broken, readRange } from "./page-store.ts";

export interface FindingFilter {
  severity: Severity;
  rule?: string;
  url?: string;
}

/** A rule's findings: how many, on how many pages. */
export interface RuleCount {
  rule: string;
  count: number;
  pages: number;
}

/** Each rule's count, worst first: from the artifact, or counted from an older audit's inline findings. */
export function sectionsOf(data: AuditData): RuleCount[] {
  if (data.findings_file) return data.findings_file.sections;
  const counts = new Map<string, { count: number; urls: Set<string> }>();
  for (const f of data.findings ?? []) {
    const c = counts.get(f.rule) ?? { count: 0, urls: new Set() };
    c.count++;
    c.urls.add(f.url);
    counts.set(f.rule, c);
  }
  return [...counts]
    .map(([rule, c]) => ({ rule, count: c.count, pages: c.urls.size }))
    .sort((a, b) => ruleOrder(a.rule, b.rule));
}

/** The findings of the rules `keep` accepts (every rule by default), worst first, one at a time. */
export function* readFindings(
  dir: string,
  data: AuditData,
  keep: (rule: string) => boolean = () => true,
): Generator<Finding> {
  if (Array.isArray(data.findings)) {
    for (const f of data.findings) if (keep(f.rule)) yield f;
    return;
  }
  const file = findingsFile(dir, data);
  for (const s of file.sections) if (keep(s.rule)) yield* readRange<Finding>(dir, "audit", file.file, s, "findings");
}

/**
 * The findings file audit.json names, its size checked against its sections
 * (one stat): a reader of some sections still finds a file cut short. Each
 * section's bytes are checked against its own hash as they are read.
 */
function findingsFile(dir: string, data: AuditData): FindingsFile {
  const file = data.findings_file;
  if (!file || !Array.isArray(file.sections) || typeof file.file !== "string" || file.file.includes("/"))
    throw broken("audit", dir, "are not named", "findings");
  const size = statSync(join(dir, file.file), { throwIfNoEntry: false })?.size;
  if (size === undefined) throw broken("audit", dir, `are missing (${file.file})`, "findings");
  if (size !== file.sections.reduce((n, s) => n + s.bytes, 0))
    throw broken("audit", dir, `do not match their checksum (${file.file})`, "findings");
  return file;
}

/** `--severity` is a floor: medium shows medium and high. */
const ruleShown = (rule: string, f: FindingFilter) =>
  SEVERITY_RANK[RULES[rule as RuleId]?.severity ?? "low"] >= SEVERITY_RANK[f.severity] && (!f.rule || rule === f.rule);

/**
 * The findings the filter shows, cut to the page asked for, and how many it
 * shows in all. Without --url a rule's section is read only where it meets the page.
 */
export function findingsPage(
  dir: string,
  data: AuditData,
  filter: FindingFilter,
  page: { offset: number; limit: number },
): CutPage<Finding> {
  const items: Finding[] = [];
  let total = 0;
  const take = (f: Finding) => {
    if (total >= page.offset && items.length < page.limit) items.push(f);
    total++;
  };
  if (data.findings_file) findingsFile(dir, data);
  if (filter.url !== undefined || !data.findings_file) {
    for (const f of readFindings(dir, data, (r) => ruleShown(r, filter)))
      if (!filter.url || f.url === filter.url) take(f);
    return { total, items };
  }
  for (const s of sectionsOf(data)) {
    if (!ruleShown(s.rule, filter)) continue;
    let read = 0;
    if (total + s.count > page.offset && items.length < page.limit)
      for (const f of readFindings(dir, data, (r) => r === s.rule)) {
        take(f);
        read++;
        if (items.length === page.limit) break;
      }
    total += s.count - read;
  }
  return { total, items };
}
