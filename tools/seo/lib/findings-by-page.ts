/**
 * Some rules' findings, page by page, read beside the pages: each rule's
 * section of the findings file is in the order the audit judged the pages,
 * one page's together (finding-store.ts), so a cursor per section, moved on
 * as each page comes, holds one finding per rule at a time.
 */
import { KitError } from "agent-cli-kit";
import type { Finding } from "./schemas.ts";
import type { AuditData } from "./artifacts.ts";
import { readFindings } from "./findings.ts";

interface Cursor {
  rest: Iterator<Finding>;
  next: Finding | null;
}

export class FindingsByPage {
  readonly #cursors: Cursor[] = [];
  /** An older audit.json's inline findings, already in memory: grouped by page. */
  readonly #inline: Map<string, Finding[]> | null = null;

  constructor(
    private readonly dir: string,
    audit: AuditData,
    rules: readonly string[],
  ) {
    if (Array.isArray(audit.findings)) {
      this.#inline = Map.groupBy(
        audit.findings.filter((f) => rules.includes(f.rule)),
        (f) => f.url,
      );
      return;
    }
    for (const rule of rules) {
      const rest = readFindings(dir, audit, (r) => r === rule)[Symbol.iterator]();
      this.#cursors.push({ rest, next: rest.next().value ?? null });
    }
  }

  /** The findings on the page at `url`: call for every page, in the order the audit judged them. */
  of(url: string): Finding[] {
    if (this.#inline) return this.#inline.get(url) ?? [];
    const out: Finding[] = [];
    for (const c of this.#cursors)
      while (c.next !== null && c.next.url === url) {
        out.push(c.next);
        c.next = c.rest.next().value ?? null;
      }
    return out;
  }

  /** After the last page: a finding never reached names a page that is not where the audit found it. */
  finish(): void {
    const left = this.#cursors.find((c) => c.next !== null);
    if (left)
      throw new KitError(
        "INVALID_ARTIFACT",
        `audit.json in ${this.dir} does not follow extract.json's pages (a finding on ${left.next!.url} is out of their order)`,
        { hint: `run \`seo audit\` again with --run-dir ${this.dir}` },
      );
  }
}
