/** The audit stage's files: its findings spilled per rule, then joined into the findings file audit.json names. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuditData, ExtractData } from "./artifacts.ts";
import { FindingSpills, writeFindings } from "./finding-store.ts";
import { counted, PageWriter, readPages } from "./page-store.ts";
import { type AuditCounts, audit } from "./rules.ts";
import type { Finding } from "./schemas.ts";

export interface Audited {
  data: AuditData;
  counts: AuditCounts;
  /** Where the findings file is: the run dir, or (on --dry-run) a temp folder to `discard` after reading it. */
  dir: string;
  discard(): void;
}

/** Audits extract's pages in `runDir`; on a dry run, nothing is written there. `onPage` counts the pages read. */
export function auditStage(
  runDir: string,
  site: ExtractData,
  redact: (t: string) => string,
  dryRun: boolean,
  now: number,
  onPage: (n: number) => void = () => {},
): Audited {
  const dir = dryRun ? mkdtempSync(join(tmpdir(), "seo-audit-")) : runDir;
  const discard = () => {
    if (dryRun) rmSync(dir, { recursive: true, force: true });
  };
  const spills = new FindingSpills(dir);
  const writer = new PageWriter<Finding>(dir, "audit", redact, "findings");
  try {
    const counts = audit(
      site,
      () => counted(readPages(runDir, "extract", site), onPage),
      (f) => spills.add(f),
      now,
    );
    const file = writeFindings(spills, writer);
    const data: AuditData = {
      source: site.source,
      pages: counts.pages,
      findings_file: file,
      ...(site.pages_file ? { extract_pages: site.pages_file.sha256 } : {}),
      summary: { findings: counts.findings, pages_with_findings: counts.pages_with_findings },
    };
    return { data, counts, dir, discard };
  } catch (e) {
    writer.abandon();
    discard();
    throw e;
  } finally {
    spills.remove();
  }
}
