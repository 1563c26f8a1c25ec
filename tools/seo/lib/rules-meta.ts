/**
 * The audit's rules: id, category, severity and what each checks. Kept apart
 * from the checks themselves so the flags (`--rule`) and the help can name
 * them without loading the audit. Modelled on Lighthouse's SEO audits plus
 * the site-wide checks a single-page auditor cannot make.
 */
import type { Category, Severity } from "./schemas.ts";

export interface RuleMeta {
  readonly category: Category;
  readonly severity: Severity;
  readonly title: string;
}

export const RULES = {
  "http-status-code": {
    category: "indexability",
    severity: "high",
    title: "The page answers with an error status (4xx/5xx) or not at all.",
  },
  "is-crawlable": {
    category: "indexability",
    severity: "high",
    title:
      "Every search engine is kept from indexing the page: by noindex, none or a past unavailable_after (a <head> robots meta, or one for each bot, or X-Robots-Tag) or robots.txt (Lighthouse's judgement).",
  },
  canonical: {
    category: "indexability",
    severity: "medium",
    title:
      "The canonical URL is invalid, relative or conflicting, points at another hreflang alternate, or at the host's root from another page (Lighthouse's judgement).",
  },
  "canonical-not-http": {
    category: "indexability",
    severity: "high",
    title:
      "The canonical URL is not http(s) (a file: or other scheme no search engine fetches): the page names an address it cannot be indexed at. A page with one fails its whole indexability category in the score.",
  },
  "canonical-offsite": {
    category: "indexability",
    severity: "low",
    title: "The canonical URL points outside the site.",
  },
  "canonical-broken": {
    category: "indexability",
    severity: "medium",
    title: "The canonical URL points at a page that fails.",
  },
  "canonical-missing": { category: "indexability", severity: "low", title: "The page declares no canonical URL." },
  "redirect-chain": { category: "indexability", severity: "low", title: "More than one redirect before the page." },
  "blocked-by-robots": {
    category: "indexability",
    severity: "low",
    title: "An internal link leads to a URL robots.txt disallows.",
  },
  "robots-txt": {
    category: "indexability",
    severity: "medium",
    title: "robots.txt has a line crawlers cannot read (Lighthouse's validation).",
  },
  "document-title": { category: "content", severity: "high", title: "The page has no <title>, or it is empty." },
  "title-length": { category: "content", severity: "low", title: "The title is under 10 or over 60 characters." },
  "duplicate-title": { category: "content", severity: "medium", title: "Another page has the same title." },
  "meta-description": {
    category: "content",
    severity: "medium",
    title: "The page has no meta description, or it is empty.",
  },
  "description-length": {
    category: "content",
    severity: "low",
    title: "The meta description is under 50 or over 160 characters.",
  },
  "duplicate-description": {
    category: "content",
    severity: "low",
    title: "Another page has the same meta description.",
  },
  "body-cut": {
    category: "content",
    severity: "medium",
    title: "The page's HTML is larger than --max-body-bytes: only its first part was read and judged.",
  },
  "h1-missing": { category: "content", severity: "medium", title: "The page has no <h1>." },
  "h1-multiple": { category: "content", severity: "low", title: "The page has more than one <h1>." },
  "thin-content": { category: "content", severity: "low", title: "The page has fewer than 50 words of text." },
  "broken-link": { category: "links", severity: "high", title: "An internal link leads to a page that fails." },
  "crawlable-anchors": {
    category: "links",
    severity: "medium",
    title: "A link has no href a crawler can follow (missing, empty or javascript:).",
  },
  "link-text": {
    category: "links",
    severity: "low",
    title: 'A link\'s text (its innerText, in its own language) does not say where it goes ("click here", "more").',
  },
  "image-alt": {
    category: "media",
    severity: "medium",
    title:
      "A visible image has no alt, aria-label, aria-labelledby, title or presentation role, or an alt of only spaces (Lighthouse's judgement).",
  },
  "html-lang": { category: "international", severity: "medium", title: "<html> has no lang attribute." },
  "html-lang-valid": {
    category: "international",
    severity: "low",
    title: "<html lang> is not a valid BCP 47 language tag.",
  },
  hreflang: {
    category: "international",
    severity: "medium",
    title: "An hreflang alternate has an invalid language code or a relative URL.",
  },
  viewport: { category: "mobile", severity: "medium", title: "No viewport meta tag with width or initial-scale." },
} as const satisfies Record<string, RuleMeta>;

export type RuleId = keyof typeof RULES;
export const RULE_IDS = Object.keys(RULES) as [RuleId, ...RuleId[]];
export const SEVERITY_RANK: Record<Severity, number> = { low: 1, medium: 2, high: 3 };
