/** The artifacts seo's stages hand each other through the run dir (contract §7). */
import type { CrawlResult } from "./crawler.ts";
import type { Finding } from "../schemas.ts";
import type { ExtractedPage } from "../page-schema.ts";

export type Source = { kind: "url"; url: string } | { kind: "dir"; dir: string; base_url: string };

export interface CrawlData extends CrawlResult {
  source: Source;
  start_url: string;
  options: { max_pages: number; max_depth: number; max_body_bytes?: number };
}

export interface ExtractData {
  source: Source;
  start_url: string;
  pages: ExtractedPage[];
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
  findings: Finding[];
}

export interface ScoreData {
  score: number;
  categories: { category: string; score: number; weight: number; findings: number; rules_failed: string[] }[];
}
