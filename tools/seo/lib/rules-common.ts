/** What every rule module shares: how a finding is handed on, which pages content rules judge, and the site's index. */
import type { RuleId } from "./rules-meta.ts";
import type { ExtractedPage } from "./page-schema.ts";

export type Emit = (
  rule: RuleId,
  page: string,
  message: string,
  detail?: Record<string, unknown>,
  key?: string,
) => void;

const isOk = (p: ExtractedPage) => p.status >= 200 && p.status < 300;
/** Content rules judge pages a search engine could index: fetched, 2xx, HTML. */
export const isContentPage = (p: ExtractedPage) => isOk(p) && p.html;

/** A value's pages: the first page's place, or (once it repeats) how many and the first MAX_OTHERS + 1 places. */
export type Group = number | { count: number; first: number[] };

/** What the site-wide rules gather in a first pass over the pages (rules-site.ts). */
export interface SiteIndex {
  status: Map<string, number>;
  /** Each page's URL by its place in the pages. */
  urls: string[];
  groups: { "duplicate-title": Map<string, Group>; "duplicate-description": Map<string, Group> };
}
