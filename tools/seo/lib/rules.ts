/**
 * The audit's checks over extract.json. Per-page rules look at one page;
 * site rules (duplicates, broken links) look across pages. Findings are
 * deterministic: same input, same findings, same ids, same order.
 */
import type { ExtractData } from "./artifacts.ts";
import { RULES, RULE_IDS, SEVERITY_RANK, type RuleId } from "../rules-meta.ts";
import type { Finding } from "../schemas.ts";
import type { ExtractedPage } from "../page-schema.ts";
import { siteRootOf, withinSite } from "./url.ts";
import { blockedForEveryBot, imageAltProblem, nonDescriptive } from "./lighthouse.ts";

const TITLE_RANGE = [10, 60] as const;
const DESCRIPTION_RANGE = [50, 160] as const;
const THIN_WORDS = 50;

type Emit = (rule: RuleId, page: string, message: string, detail?: Record<string, unknown>, key?: string) => void;

const findingId = (rule: string, url: string, key: string): string =>
  `f-${new Bun.CryptoHasher("sha256").update(`${rule}\n${url}\n${key}`).digest("hex").slice(0, 12)}`;

/** BCP 47, with a real primary language: two or three letters (ISO 639), not a word like "english". */
export const validLanguageTag = (tag: string): boolean => {
  if (!/^[a-z]{2,3}(-|$)/i.test(tag)) return false;
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
};

const isOk = (p: ExtractedPage) => p.status >= 200 && p.status < 300;
/** Content rules judge pages a search engine could index: fetched, 2xx, HTML. */
const isContentPage = (p: ExtractedPage) => isOk(p) && p.html;

function pageRules(p: ExtractedPage, site: ExtractData, index: SiteIndex, emit: Emit): void {
  if (p.status === 0 || p.status >= 400)
    emit("http-status-code", p.url, p.status === 0 ? `the request failed` : `answers ${p.status}`, {
      status: p.status,
    });
  if (p.redirects > 1)
    emit("redirect-chain", p.url, `${p.redirects} redirects before ${p.final_url}`, {
      redirects: p.redirects,
      final_url: p.final_url,
    });
  if (p.cut && p.html) {
    const limit = site.max_body_bytes ?? null;
    emit(
      "body-cut",
      p.url,
      `the HTML is ${p.size} bytes; only the first ${limit ?? "part"}${limit ? " bytes" : ""} were read and judged (--max-body-bytes)`,
      { bytes: p.size, limit },
    );
  }
  if (!isContentPage(p)) return;

  const blocked = blockedForEveryBot(p, site.robots);
  if (blocked)
    emit("is-crawlable", p.url, `every search engine is kept from indexing it: ${blocked.join("; ")}`, {
      robots_meta: p.robots_meta,
      x_robots_tag: p.x_robots_tag,
      blocked_by: blocked,
    });

  if (!p.title) emit("document-title", p.url, p.title_count ? "the <title> is empty" : "there is no <title>");
  else if (p.title.length < TITLE_RANGE[0] || p.title.length > TITLE_RANGE[1])
    emit(
      "title-length",
      p.url,
      `the title is ${p.title.length} characters (aim for ${TITLE_RANGE[0]}–${TITLE_RANGE[1]})`,
      { length: p.title.length, title: p.title },
    );

  if (!p.meta_description)
    emit(
      "meta-description",
      p.url,
      p.description_count ? "the meta description is empty" : "there is no meta description",
    );
  else if (p.meta_description.length < DESCRIPTION_RANGE[0] || p.meta_description.length > DESCRIPTION_RANGE[1])
    emit(
      "description-length",
      p.url,
      `the meta description is ${p.meta_description.length} characters (aim for ${DESCRIPTION_RANGE[0]}–${DESCRIPTION_RANGE[1]})`,
      { length: p.meta_description.length },
    );

  if (p.h1_count === 0) emit("h1-missing", p.url, "there is no <h1>");
  if (p.h1_count > 1)
    emit("h1-multiple", p.url, `there are ${p.h1_count} <h1> elements`, {
      count: p.h1_count,
      h1: p.headings.filter((h) => h.level === 1).map((h) => h.text),
    });
  if (p.word_count < THIN_WORDS)
    emit("thin-content", p.url, `only ${p.word_count} words of text`, { words: p.word_count });

  canonicalRules(p, site, index, emit);

  if (p.lang === null || p.lang === "")
    emit("html-lang", p.url, p.lang === "" ? "<html lang> is empty" : "<html> has no lang attribute");
  else if (!validLanguageTag(p.lang))
    emit("html-lang-valid", p.url, `'${p.lang}' is not a valid language tag`, { lang: p.lang });

  for (const h of p.hreflang) {
    const code = h.lang.trim();
    if (code.toLowerCase() !== "x-default" && !validLanguageTag(code))
      emit("hreflang", p.url, `hreflang '${code}' is not a valid language code`, { hreflang: code }, `lang:${code}`);
    if (!/^https?:/.test(h.raw.toLowerCase()))
      emit(
        "hreflang",
        p.url,
        `hreflang '${code}' has a relative URL '${h.raw}'`,
        { hreflang: code, href: h.raw },
        `href:${code}`,
      );
  }

  if (!p.viewport || !/\b(width|initial-scale)\s*=/i.test(p.viewport))
    emit(
      "viewport",
      p.url,
      p.viewport
        ? `the viewport '${p.viewport}' sets neither width nor initial-scale`
        : "there is no viewport meta tag",
      { viewport: p.viewport },
    );

  p.images.forEach((img, i) => {
    const problem = imageAltProblem(img);
    if (problem)
      emit(
        "image-alt",
        p.url,
        `<img src="${img.src ?? ""}"> has ${problem}`,
        { src: img.src, alt: img.alt },
        `img:${img.src ?? i}`,
      );
  });

  p.links.forEach((l, i) => {
    if (!l.crawlable)
      emit(
        "crawlable-anchors",
        p.url,
        `a link has ${l.raw === null ? "no href" : `href '${l.raw}'`}`,
        { href: l.raw, text: l.text },
        `a:${i}:${l.raw}`,
      );
    if (nonDescriptive(l, p.final_url, p.lang))
      emit(
        "link-text",
        p.url,
        `link text '${l.text}' does not say where it goes`,
        { href: l.href, text: l.text },
        `text:${l.href}:${l.text}`,
      );
  });
}

/** Lighthouse's canonical judgement (its order: invalid, relative, conflicting, then two common mistakes), and seo's own two beside it. */
function canonicalRules(p: ExtractedPage, site: ExtractData, index: SiteIndex, emit: Emit): void {
  if (p.canonical_raw.length === 0) return emit("canonical-missing", p.url, "no <link rel=canonical>");
  const raws = p.canonical_raw.map((c) => c.trim());
  const resolved = raws.map((r) => (URL.canParse(r, p.final_url) ? new URL(r, p.final_url).href : null));
  const invalid = raws.find((_, i) => resolved[i] === null);
  if (invalid !== undefined)
    return emit("canonical", p.url, `canonical '${invalid}' is not a valid URL`, { canonical: invalid }, "invalid");
  const relative = raws.find((r) => !URL.canParse(r));
  if (relative !== undefined)
    return emit(
      "canonical",
      p.url,
      `canonical '${relative}' is relative; use an absolute URL`,
      { canonical: relative, absolute: resolved[raws.indexOf(relative)] },
      "relative",
    );
  const unique = [...new Set(resolved as string[])];
  if (unique.length > 1)
    return emit("canonical", p.url, `${unique.length} different canonical URLs`, { canonicals: unique }, "conflict");
  const canonical = new URL(unique[0]!);
  const page = new URL(p.final_url);
  const alternates = new Set(
    p.hreflang.flatMap((h) =>
      URL.canParse(h.raw.trim(), p.final_url) ? [new URL(h.raw.trim(), p.final_url).href] : [],
    ),
  );
  if (alternates.has(page.href) && alternates.has(canonical.href) && page.href !== canonical.href)
    emit(
      "canonical",
      p.url,
      `canonical points at another hreflang alternate, ${canonical.href}`,
      { canonical: canonical.href },
      "hreflang",
    );
  else if (canonical.origin === page.origin && canonical.pathname === "/" && page.pathname !== "/")
    emit(
      "canonical",
      p.url,
      "canonical points at the host's root (the home page)",
      { canonical: canonical.href },
      "root",
    );
  if (!withinSite(canonical.href, siteRootOf(site.start_url)))
    emit("canonical-offsite", p.url, `canonical points off-site, to ${canonical.href}`, { canonical: canonical.href });
  const status = index.status.get(canonical.href);
  if (status !== undefined && !(status >= 200 && status < 300))
    emit("canonical-broken", p.url, `canonical ${canonical.href} answers ${status}`, {
      canonical: canonical.href,
      status,
    });
}

/** Lighthouse's robots.txt validation: each line a known directive with a value of the right form, allow/disallow inside a group. */
const ROBOTS_DIRECTIVES = new Set([
  "user-agent",
  "disallow",
  "allow",
  "sitemap",
  "crawl-delay",
  "clean-param",
  "host",
  "request-rate",
  "visit-time",
  "noindex",
]);

function robotsLineProblem(name: string, value: string): string | null {
  if (!ROBOTS_DIRECTIVES.has(name)) return "Unknown directive";
  if (name === "sitemap") {
    if (!URL.canParse(value)) return "Invalid sitemap URL";
    if (!["https:", "http:", "ftp:"].includes(new URL(value).protocol)) return "Invalid sitemap URL protocol";
  }
  if (name === "user-agent" && !value) return "No user-agent specified";
  if (name === "allow" || name === "disallow") {
    if (value !== "" && value[0] !== "/" && value[0] !== "*")
      return 'Pattern should either be empty, start with "/" or "*"';
    const dollar = value.indexOf("$");
    if (dollar !== -1 && dollar !== value.length - 1) return '"$" should only be used at the end of the pattern';
  }
  return null;
}

function robotsRules(site: ExtractData, emit: Emit): void {
  const robots = site.robots;
  if (!robots?.content) return;
  let inGroup = false;
  for (const [i, raw] of robots.content.split(/\r\n|\r|\n/).entries()) {
    const line = raw.split("#")[0]!.trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    const name = colon === -1 ? "" : line.slice(0, colon).trim().toLowerCase();
    const problem = colon === -1 ? "Syntax not understood" : robotsLineProblem(name, line.slice(colon + 1).trim());
    if (problem) {
      emit(
        "robots-txt",
        robots.url,
        `line ${i + 1}: ${problem}: '${raw.trim()}'`,
        { line: i + 1, text: raw },
        `line:${i + 1}`,
      );
      continue;
    }
    if (name === "user-agent") inGroup = true;
    else if (!inGroup && (name === "allow" || name === "disallow"))
      emit(
        "robots-txt",
        robots.url,
        `line ${i + 1}: No user-agent specified: '${raw.trim()}'`,
        { line: i + 1, text: raw },
        `line:${i + 1}`,
      );
  }
}

/** What the site-wide rules need of every page, gathered in a first pass: statuses by URL, and titles and descriptions by value. */
interface SiteIndex {
  status: Map<string, number>;
  groups: { "duplicate-title": Map<string, string[]>; "duplicate-description": Map<string, string[]> };
}

/** A page that names another as canonical is a deliberate duplicate. */
const ownPage = (p: ExtractedPage) =>
  isContentPage(p) && (!p.canonical || p.canonical === p.final_url || p.canonical === p.url);
const DUPLICATES = [
  ["duplicate-title", (p: ExtractedPage) => p.title, "title"],
  ["duplicate-description", (p: ExtractedPage) => p.meta_description, "meta description"],
] as const;
/** Other pages named in a duplicate finding: the count is whole, the list bounded. */
const MAX_OTHERS = 20;

function indexSite(pages: Iterable<ExtractedPage>): SiteIndex {
  const index: SiteIndex = {
    status: new Map(),
    groups: { "duplicate-title": new Map(), "duplicate-description": new Map() },
  };
  for (const p of pages) {
    index.status.set(p.url, p.status);
    if (!index.status.has(p.final_url)) index.status.set(p.final_url, p.status);
    if (!ownPage(p)) continue;
    for (const [rule, value] of DUPLICATES) {
      const v = value(p)?.trim().toLowerCase();
      if (!v) continue;
      const group = index.groups[rule].get(v);
      if (group) group.push(p.url);
      else index.groups[rule].set(v, [p.url]);
    }
  }
  return index;
}

function siteRulesOfPage(p: ExtractedPage, index: SiteIndex, emit: Emit): void {
  if (!isContentPage(p)) return;
  if (ownPage(p))
    for (const [rule, value, what] of DUPLICATES) {
      const group = index.groups[rule].get(value(p)?.trim().toLowerCase() ?? "");
      if (!group || group.length < 2) continue;
      const others = group.filter((u) => u !== p.url);
      emit(rule, p.url, `the same ${what} as ${others.length} other page(s)`, {
        value: value(p),
        others: others.slice(0, MAX_OTHERS),
        others_count: others.length,
      });
    }
  for (const l of p.links) {
    if (!l.internal || !l.href) continue;
    const status = index.status.get(l.href);
    if (status !== undefined && (status === 0 || status >= 400))
      emit(
        "broken-link",
        p.url,
        `links to ${l.href}, which ${status ? `answers ${status}` : "cannot be reached"}`,
        { href: l.href, status, text: l.text, raw: l.raw },
        l.href,
      );
  }
}

/**
 * Two passes over the pages (each read afresh: the site is never held): the
 * first gathers what site-wide rules need, the second judges each page.
 */
export function audit(site: ExtractData, pages: () => Iterable<ExtractedPage>): { findings: Finding[]; pages: number } {
  const index = indexSite(pages());
  const found = new Map<string, Finding>();
  const emit: Emit = (rule, url, message, detail = {}, key = "") => {
    const id = findingId(rule, url, key);
    if (!found.has(id))
      found.set(id, { id, rule, severity: RULES[rule].severity, category: RULES[rule].category, url, message, detail });
  };
  let count = 0;
  for (const p of pages()) {
    count++;
    pageRules(p, site, index, emit);
    siteRulesOfPage(p, index, emit);
  }
  for (const b of site.blocked)
    for (const from of b.linked_from)
      emit("blocked-by-robots", from, `links to ${b.url}, which robots.txt disallows`, { href: b.url }, b.url);
  robotsRules(site, emit);
  const order = (r: string) => RULE_IDS.indexOf(r as RuleId);
  const findings = [...found.values()].sort(
    (a, b) =>
      SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
      order(a.rule) - order(b.rule) ||
      (a.url < b.url ? -1 : a.url > b.url ? 1 : 0) ||
      (a.id < b.id ? -1 : 1),
  );
  return { findings, pages: count };
}
