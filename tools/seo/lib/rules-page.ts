/** The audit's per-page rules: each looks at one page (and the site's robots.txt, statuses and duplicates). */
import type { ExtractData } from "./artifacts.ts";
import type { ExtractedPage } from "./page-schema.ts";
import { blockedForEveryBot, imageAltProblem, nonDescriptive } from "./lighthouse.ts";
import { canonicalRules } from "./rules-canonical.ts";
import { type Emit, isContentPage, type SiteIndex } from "./rules-common.ts";

export const TITLE_RANGE = [10, 60] as const;
export const DESCRIPTION_RANGE = [50, 160] as const;
const THIN_WORDS = 50;

/** BCP 47, with a real primary language: two or three letters (ISO 639), not a word like "english". */
export const validLanguageTag = (tag: string): boolean => {
  if (!/^[a-z]{2,3}(-|$)/i.test(tag)) return false;
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
};

export function pageRules(p: ExtractedPage, site: ExtractData, index: SiteIndex, emit: Emit, now: number): void {
  fetchRules(p, site, emit);
  if (!isContentPage(p)) return;
  const blocked = blockedForEveryBot(p, site.robots, now);
  if (blocked)
    emit("is-crawlable", p.url, `every search engine is kept from indexing it: ${blocked.join("; ")}`, {
      robots_meta: p.robots_meta,
      x_robots_tag: p.x_robots_tag,
      blocked_by: blocked,
    });
  headRules(p, emit);
  contentRules(p, emit);
  canonicalRules(p, site, index, emit);
  languageRules(p, emit);
  elementRules(p, emit);
}

/** What fetching the page said: its status, its redirects, a body cut at --max-body-bytes. */
function fetchRules(p: ExtractedPage, site: ExtractData, emit: Emit): void {
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
}

/** The title and the meta description: present, and of a length search results show. */
function headRules(p: ExtractedPage, emit: Emit): void {
  if (!p.title) emit("document-title", p.url, p.title_count ? "the <title> is empty" : "there is no <title>");
  else if (p.title.length < TITLE_RANGE[0] || p.title.length > TITLE_RANGE[1])
    emit(
      "title-length",
      p.url,
      `the title is ${p.title.length} characters (aim for ${TITLE_RANGE[0]}–${TITLE_RANGE[1]})`,
      { length: p.title.length, title: p.title },
    );
  const d = p.meta_description;
  if (!d)
    emit(
      "meta-description",
      p.url,
      p.description_count ? "the meta description is empty" : "there is no meta description",
    );
  else if (d.length < DESCRIPTION_RANGE[0] || d.length > DESCRIPTION_RANGE[1])
    emit(
      "description-length",
      p.url,
      `the meta description is ${d.length} characters (aim for ${DESCRIPTION_RANGE[0]}–${DESCRIPTION_RANGE[1]})`,
      { length: d.length },
    );
}

function contentRules(p: ExtractedPage, emit: Emit): void {
  if (p.h1_count === 0) emit("h1-missing", p.url, "there is no <h1>");
  if (p.h1_count > 1)
    emit("h1-multiple", p.url, `there are ${p.h1_count} <h1> elements`, {
      count: p.h1_count,
      h1: p.headings.filter((h) => h.level === 1).map((h) => h.text),
    });
  if (p.word_count < THIN_WORDS)
    emit("thin-content", p.url, `only ${p.word_count} words of text`, { words: p.word_count });
  if (!p.viewport || !/\b(width|initial-scale)\s*=/i.test(p.viewport))
    emit(
      "viewport",
      p.url,
      p.viewport
        ? `the viewport '${p.viewport}' sets neither width nor initial-scale`
        : "there is no viewport meta tag",
      { viewport: p.viewport },
    );
}

/** The page's language, and its hreflang alternates' codes and URLs. */
function languageRules(p: ExtractedPage, emit: Emit): void {
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
}

/** Every image and every link of the page: all are judged, however many. */
function elementRules(p: ExtractedPage, emit: Emit): void {
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
