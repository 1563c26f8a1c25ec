/**
 * Lighthouse 12's judgements, read from its sources (core/audits/seo/*.js,
 * core/gather/gatherers/{meta-elements,link-elements,anchor-elements}.js and
 * axe-core's image-alt rule), for the rules that carry their ids.
 */
import robotsParser from "robots-parser";
import type { ExtractedPage } from "./page-schema.ts";

/**
 * Lighthouse 12's link texts that say nothing about the target, per language
 * (from its link-text audit): a link's text is looked up in its page's
 * language's list, or in every list when the page states no language.
 */
const NON_DESCRIPTIVE: Readonly<Record<string, ReadonlySet<string>>> = {
  en: new Set([
    "click here",
    "click this",
    "go",
    "here",
    "information",
    "learn more",
    "more",
    "more info",
    "more information",
    "right here",
    "read more",
    "see more",
    "start",
    "this",
  ]),
  ja: new Set(["ここをクリック", "こちらをクリック", "リンク", "続きを読む", "続く", "全文表示"]),
  es: new Set([
    "click aquí",
    "click aqui",
    "clicka aquí",
    "clicka aqui",
    "pincha aquí",
    "pincha aqui",
    "aquí",
    "aqui",
    "más",
    "mas",
    "más información",
    "más informacion",
    "mas información",
    "mas informacion",
    "este",
    "enlace",
    "este enlace",
    "empezar",
  ]),
  pt: new Set(["clique aqui", "ir", "mais informação", "mais informações", "mais", "veja mais"]),
  ko: new Set(["여기", "여기를 클릭", "클릭", "링크", "자세히", "자세히 보기", "계속", "이동", "전체 보기"]),
  sv: new Set(["här", "klicka här", "läs mer", "mer", "mer info", "mer information"]),
  de: new Set(["klicke hier", "hier klicken", "hier", "mehr", "siehe", "dies", "das", "weiterlesen"]),
  ta: new Set([
    "அடுத்த பக்கம்",
    "மறுபக்கம்",
    "முந்தைய பக்கம்",
    "முன்பக்கம்",
    "மேலும் அறிக",
    "மேலும் தகவலுக்கு",
    "மேலும் தரவுகளுக்கு",
    "தயவுசெய்து இங்கே அழுத்தவும்",
    "இங்கே கிளிக் செய்யவும்",
  ]),
  fa: new Set([
    "اطلاعات بیشتر",
    "اطلاعات",
    "این",
    "اینجا بزنید",
    "اینجا کلیک کنید",
    "اینجا",
    "برو",
    "بیشتر بخوانید",
    "بیشتر بدانید",
    "بیشتر",
    "شروع",
  ]),
};

/**
 * Lighthouse's link-text judgement of one link on a page. The text is the
 * link's innerText (an image's alt is not in it, hidden text is not); the
 * language is the link's own (its nearest lang), else the page's.
 */
export function nonDescriptive(
  l: { href: string | null; text: string; rel: string | null; lang?: string | null },
  pageUrl: string,
  pageLang: string | null,
): boolean {
  const lang = l.lang !== undefined ? l.lang : pageLang;
  if (!l.href || /\bnofollow\b/i.test(l.rel ?? "")) return false;
  const href = l.href.toLowerCase();
  if (href.startsWith("javascript:") || href.startsWith("mailto:") || l.href.split("#")[0] === pageUrl.split("#")[0])
    return false;
  const text = l.text.trim().toLowerCase();
  if (!text) return false;
  const primary = lang?.split("-")[0]?.toLowerCase();
  if (primary) return NON_DESCRIPTIVE[primary]?.has(text) ?? false;
  return Object.values(NON_DESCRIPTIVE).some((texts) => texts.has(text));
}

/** The site's robots.txt, parsed once for all its pages. */
let lastRobots: { url: string; content: string; parsed: ReturnType<typeof robotsParser> } | null = null;
function parsedRobots(url: string, content: string): ReturnType<typeof robotsParser> {
  if (lastRobots?.url !== url || lastRobots.content !== content)
    lastRobots = { url, content, parsed: robotsParser(url, content) };
  return lastRobots.parsed;
}

/** is-crawlable's bots: the generic one (robots meta, robots.txt's `*`) and four named ones. */
const BOTS = [undefined, "Googlebot", "bingbot", "DuckDuckBot", "archive.org_bot"] as const;

function unavailable(directive: string, now: number): boolean {
  const parts = directive.split(":");
  if (parts.length <= 1 || parts[0] !== "unavailable_after") return false;
  const date = Date.parse(parts.slice(1).join(":"));
  return !Number.isNaN(date) && date < now;
}

const blocking = (directives: string, now: number): boolean =>
  directives
    .split(",")
    .map((d) => d.toLowerCase().trim())
    .some((d) => d === "noindex" || d === "none" || unavailable(d, now));

/** The bot an X-Robots-Tag value is addressed to (`googlebot: noindex`), if any. */
function headerBot(value: string): string | undefined {
  const m = /^([^,:]+):/.exec(value);
  return m && m[1]!.toLowerCase() !== "unavailable_after" ? m[1] : undefined;
}

/**
 * is-crawlable: the page fails only when every bot is blocked (the generic
 * one and Googlebot, bingbot, DuckDuckBot, archive.org_bot), each by its own
 * head meta (else the robots meta), an X-Robots-Tag for it or for all, or
 * robots.txt. Returns what blocks the generic bot, or null when some bot may index the page.
 */
export function blockedForEveryBot(
  p: ExtractedPage,
  robotsTxt: { url: string; content: string | null } | undefined,
  /** The audit's clock (ms): a past `unavailable_after` blocks. */
  now: number,
): string[] | null {
  const metas = p.robots_metas ?? (p.robots_meta ? [{ name: "robots", content: p.robots_meta }] : []);
  const robots = robotsTxt?.content ? parsedRobots(robotsTxt.url, robotsTxt.content) : null;
  let generic: string[] = [];
  for (const bot of BOTS) {
    const why: string[] = [];
    const meta = (bot && metas.find((m) => m.name === bot.toLowerCase())) || metas.find((m) => m.name === "robots");
    if (meta && blocking(meta.content, now)) why.push(`<meta name="${meta.name}" content="${meta.content}">`);
    const header = p.x_robots_tag;
    if (header !== null) {
      const addressed = headerBot(header);
      const applies = addressed === undefined || addressed === bot;
      const value = bot && header.startsWith(`${bot}:`) ? header.replace(`${bot}:`, "") : header.trim();
      if (applies && blocking(value, now)) why.push(`X-Robots-Tag: ${header}`);
    }
    if (robots && !robots.isAllowed(p.final_url, bot)) why.push(`robots.txt disallows it`);
    if (why.length === 0) return null;
    if (bot === undefined) generic = why;
  }
  return generic;
}

/** axe-core's image-alt (Lighthouse's image-alt): why an image fails, or null (it passes, or is hidden and not judged). */
export function imageAltProblem(img: {
  alt: string | null;
  hidden?: boolean;
  named?: boolean;
  presentational?: boolean;
}): string | null {
  if (img.hidden) return null;
  const presentational = img.presentational ?? false;
  if (img.alt !== null && /^\s+$/.test(img.alt) && !presentational) return "an alt of only spaces";
  if (img.alt !== null || img.named || presentational) return null;
  return "no alt attribute";
}
