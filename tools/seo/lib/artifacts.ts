/** The artifacts seo's stages hand each other through the run dir (contract §7). */
import type { CrawledPage, CrawlResult } from "./crawler.ts";
import type { PagesFile } from "./page-store.ts";
import type { FindingsFile } from "./finding-store.ts";
import type { Finding } from "./schemas.ts";
import type { ExtractedPage } from "./page-schema.ts";

export type Source = { kind: "url"; url: string } | { kind: "dir"; dir: string; base_url: string };

export interface CrawlData extends Omit<CrawlResult, "referrers"> {
  source: Source;
  start_url: string;
  options: { max_pages: number; max_depth: number; max_body_bytes?: number };
  /** The pages, one JSON line each (page-store.ts); an older crawl.json holds them inline as `pages`. */
  pages_file?: PagesFile;
  pages?: (CrawledPage & { linked_from?: string[] })[];
  /** `{ url, linked_from }` lines: the pages that link to each URL (at most 20 each). */
  referrers_file?: PagesFile;
}

export interface ExtractData {
  source: Source;
  start_url: string;
  /** The pages, one JSON line each (page-store.ts); an older extract.json holds them inline as `pages`. */
  pages_file?: PagesFile;
  pages?: ExtractedPage[];
  /** How many pages: known without reading them. */
  page_count?: number;
  /** The crawl's --max-body-bytes (absent in an extract of an older crawl). */
  max_body_bytes?: number;
  /** URLs robots.txt kept the crawl from, with the pages that link to them. */
  blocked: { url: string; linked_from: string[] }[];
  /** The site's robots.txt as fetched (content null: there is none); absent in an extract of an older crawl. */
  robots?: { url: string; content: string | null };
}

export interface AuditData {
  source: Source;
  pages: number;
  /** The findings, one JSON line each, a section per rule, worst first (finding-store.ts); an older audit.json holds them inline as `findings`. */
  findings_file?: FindingsFile;
  findings?: Finding[];
  /** The sha256 of the extract pages file the audit judged: `plan` reads its findings beside those pages. */
  extract_pages?: string;
  /** Findings in all, and on how many pages (URLs). */
  summary?: { findings: number; pages_with_findings: number };
}

export interface ScoreData {
  score: number;
  categories: { category: string; score: number; weight: number; findings: number; rules_failed: string[] }[];
}
