/**
 * The audit's rules, in-process: their verdicts on real pages (HTML strings
 * parsed as extract parses them, and the edge corpus judged as Lighthouse
 * judged it), the site-wide rules across pages, and findings that are the
 * same, in the same order, with the same ids, run after run.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RULE_IDS } from "./rules-meta.ts";
import { auditSite, type EdgeCase, siteOf, type TestPage, verdicts } from "../../../test/helpers/seo-pages.ts";

const ORIGIN = "https://harbour.example/";
const PROSE = `<p>${"Harbour tides decide when the ferries sail from the old quay each morning. ".repeat(6)}</p>`;
let made = 0;
/** A page with nothing wrong (a title and description of its own), its `{url}` its own URL; `head` and `body` are added to it. */
function clean(head = "", body = "", lang = "en"): string {
  const n = ++made;
  return `<!doctype html><html lang="${lang}"><head><title>Tides and ferries, part ${n}</title><meta name="description" content="When the ferries leave the old harbour, how the tides decide it, and where to buy a ticket: part ${n}."><meta name="viewport" content="width=device-width"><link rel="canonical" href="{url}">${head}</head><body><h1>Tides</h1>${PROSE}${body}</body></html>`;
}

/** `rule path` for every finding of the site made of `pages` (by path under ORIGIN), sorted. */
function findings(pages: Record<string, TestPage>, site: Parameters<typeof siteOf>[2] = {}): string[] {
  const { data, pages: all } = siteOf(ORIGIN, pages, site);
  return auditSite(data, () => all)
    .findings.map((f) => `${f.rule} ${f.url.replace(ORIGIN, "/")}`)
    .sort();
}

describe("one page's rules", () => {
  test("a clean page has no finding", () => {
    expect(findings({ "": clean() })).toEqual([]);
  });

  test("a page answering 4xx, 5xx or nothing is http-status-code and judged no further; a chain of redirects is redirect-chain", () => {
    expect(findings({ "": clean(), "gone.html": 404, "down.html": 0 })).toEqual([
      "http-status-code /down.html",
      "http-status-code /gone.html",
    ]);
    expect(findings({ "": { html: clean(), redirects: 2 } })).toEqual(["redirect-chain /"]);
  });

  test("the title: none, empty, or outside 10–60 characters", () => {
    const titled = (t: string) => clean().replace(/<title>[^<]*<\/title>/, t);
    expect(
      findings({ "a.html": titled(""), "b.html": titled("<title></title>"), "c.html": titled("<title>Tides</title>") }),
    ).toEqual(["document-title /a.html", "document-title /b.html", "title-length /c.html"]);
  });

  test("the meta description: none, empty, or outside 50–160 characters", () => {
    const described = (d: string) => clean().replace(/<meta name="description"[^>]*>/, d);
    expect(
      findings({
        "a.html": described(""),
        "b.html": described('<meta name="description" content="">'),
        "c.html": described('<meta name="description" content="Too short.">'),
      }),
    ).toEqual(["description-length /c.html", "meta-description /a.html", "meta-description /b.html"]);
  });

  test("headings and words: no <h1>, more than one, fewer than 50 words", () => {
    const thin = clean().replace(PROSE, "<p>A few words only.</p>");
    expect(
      findings({
        "a.html": clean().replace("<h1>Tides</h1>", ""),
        "b.html": clean("", "<h1>Again</h1>"),
        "c.html": thin,
      }),
    ).toEqual(["h1-missing /a.html", "h1-multiple /b.html", "thin-content /c.html"]);
  });

  test("the page's language: none or empty is html-lang, one that is not a language tag html-lang-valid", () => {
    expect(
      findings({ "a.html": clean("", "", ""), "b.html": clean("", "", "english"), "c.html": clean("", "", "en-GB") }),
    ).toEqual(["html-lang /a.html", "html-lang-valid /b.html"]);
    expect(findings({ "a.html": clean().replace(' lang="en"', "") })).toEqual(["html-lang /a.html"]);
  });

  test("hreflang: a code that is not a language, or a relative URL; x-default passes", () => {
    const alt = (lang: string, href: string) => `<link rel="alternate" hreflang="${lang}" href="${href}">`;
    expect(findings({ "": clean(alt("x-default", ORIGIN) + alt("de", `${ORIGIN}de/`)) })).toEqual([]);
    expect(findings({ "": clean(alt("deutsch", `${ORIGIN}de/`) + alt("fr", "fr/")) })).toEqual([
      "hreflang /",
      "hreflang /",
    ]);
  });

  test("viewport: none, or one setting neither width nor initial-scale", () => {
    const viewport = (v: string) => clean().replace(/<meta name="viewport"[^>]*>/, v);
    expect(
      findings({ "a.html": viewport(""), "b.html": viewport('<meta name="viewport" content="user-scalable=no">') }),
    ).toEqual(["viewport /a.html", "viewport /b.html"]);
  });

  test("images, anchors and link texts, one finding each (a link to the page itself is not judged for its text)", () => {
    const body =
      '<img src="/a.png"><img src="/b.png" alt=" "><img src="/c.png" alt=""><a>menu</a><a href="javascript:void(0)">x</a><a href="/ferries.html">click here</a><a href="/ferries.html" lang="de">hier</a><a href="/ferries.html">Ferries</a><a href="/">click here</a>';
    expect(findings({ "": clean("", body) })).toEqual([
      "crawlable-anchors /",
      "crawlable-anchors /",
      "image-alt /",
      "image-alt /",
      "link-text /",
      "link-text /",
    ]);
  });

  test("is-crawlable: a noindex for every bot, by meta, X-Robots-Tag or robots.txt; a googlebot-only noindex leaves the others", () => {
    const robots = { url: `${ORIGIN}robots.txt`, content: "User-agent: *\nDisallow: /private/\n" };
    expect(
      findings(
        {
          "meta.html": clean('<meta name="robots" content="noindex">'),
          "header.html": { html: clean(), x_robots_tag: "none" },
          "private/a.html": clean(),
          "google.html": clean('<meta name="googlebot" content="noindex">'),
        },
        { robots },
      ),
    ).toEqual(["is-crawlable /header.html", "is-crawlable /meta.html", "is-crawlable /private/a.html"]);
  });

  test("a page read only in part is body-cut, naming its size and the limit", () => {
    const { data, pages } = siteOf(
      ORIGIN,
      { "": { html: clean(), cut: true, size: 5_000_000 } },
      { maxBodyBytes: 2_097_152 },
    );
    const cut = auditSite(data, () => pages).findings.find((f) => f.rule === "body-cut");
    expect([cut?.message, cut?.detail]).toEqual([
      "the HTML is 5000000 bytes; only the first 2097152 bytes were read and judged (--max-body-bytes)",
      { bytes: 5_000_000, limit: 2_097_152 },
    ]);
  });
});

describe("canonicals, in Lighthouse's order, and seo's own two", () => {
  const canonical = (href: string, extra = "") =>
    clean(extra).replace(/<link rel="canonical"[^>]*>/, href ? `<link rel="canonical" href="${href}">` : "");
  const kinds = (pages: Record<string, TestPage>) => {
    const { data, pages: all } = siteOf(ORIGIN, pages);
    return auditSite(data, () => all)
      .findings.filter((f) => f.rule.startsWith("canonical"))
      .map((f) => `${f.rule} ${f.url.replace(ORIGIN, "/")} ${JSON.stringify(f.detail)}`);
  };

  test("missing, invalid, relative, conflicting", () => {
    expect(kinds({ "a.html": canonical("") })).toEqual(["canonical-missing /a.html {}"]);
    expect(kinds({ "b.html": canonical("http://[bad") })).toEqual(['canonical /b.html {"canonical":"http://[bad"}']);
    expect(kinds({ "c.html": canonical("c.html") })).toEqual([
      `canonical /c.html {"canonical":"c.html","absolute":"${ORIGIN}c.html"}`,
    ]);
    expect(kinds({ "d.html": canonical(`${ORIGIN}d.html`, `<link rel="canonical" href="${ORIGIN}e.html">`) })).toEqual([
      `canonical /d.html {"canonicals":["${ORIGIN}d.html","${ORIGIN}e.html"]}`,
    ]);
  });

  test("pointing at the host's root from another page, at another hreflang alternate, off-site, or at a page that fails", () => {
    const alternates = `<link rel="alternate" hreflang="en" href="${ORIGIN}en.html"><link rel="alternate" hreflang="de" href="${ORIGIN}de.html">`;
    expect(
      kinds({
        "root.html": canonical(ORIGIN),
        "de.html": canonical(`${ORIGIN}en.html`, alternates),
        "away.html": canonical("https://elsewhere.example/away.html"),
        "dup.html": canonical(`${ORIGIN}gone.html`),
        "gone.html": 404,
      }),
      // Each rule's findings in the pages' order.
    ).toEqual([
      `canonical /root.html {"canonical":"${ORIGIN}"}`,
      `canonical /de.html {"canonical":"${ORIGIN}en.html"}`,
      `canonical-broken /dup.html {"canonical":"${ORIGIN}gone.html","status":404}`,
      `canonical-offsite /away.html {"canonical":"https://elsewhere.example/away.html"}`,
    ]);
  });
});

describe("the site's rules", () => {
  test("a title or description shared (case and spaces aside) by pages that are their own; a page naming another as canonical is a deliberate copy", () => {
    const same = (canonical: string, title = "Tides and ferries") =>
      clean()
        .replace(/<title>[^<]*<\/title>/, `<title>${title}</title>`)
        .replace(/part \d+\./, "every part.")
        .replace("{url}", canonical);
    const { data, pages } = siteOf(ORIGIN, {
      "a.html": same(`${ORIGIN}a.html`),
      "b.html": same(`${ORIGIN}b.html`, " TIDES and  ferries "),
      "copy.html": same(`${ORIGIN}a.html`),
    });
    const shared = auditSite(data, () => pages).findings.filter((f) => f.rule.startsWith("duplicate"));
    expect(shared.map((f) => [f.rule, f.url.replace(ORIGIN, "/"), f.detail.others])).toEqual([
      ["duplicate-title", "/a.html", [`${ORIGIN}b.html`]],
      ["duplicate-title", "/b.html", [`${ORIGIN}a.html`]],
      ["duplicate-description", "/a.html", [`${ORIGIN}b.html`]],
      ["duplicate-description", "/b.html", [`${ORIGIN}a.html`]],
    ]);
  });

  test("a duplicate names at most 20 of the other pages and counts them all", () => {
    const page = clean().replace(/<title>[^<]*<\/title>/, "<title>Tides and ferries</title>");
    const pages = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}.html`, page]));
    const { data, pages: all } = siteOf(ORIGIN, pages);
    const first = auditSite(data, () => all).findings.find((f) => f.rule === "duplicate-title")!;
    expect([(first.detail.others as string[]).length, first.detail.others_count]).toEqual([20, 29]);
  });

  test("an internal link to a page that fails is broken-link, once per target; a link off the site is not judged", () => {
    const body =
      '<a href="/gone.html">a</a><a href="/gone.html#x">again</a><a href="https://elsewhere.example/gone.html">away</a>';
    const { data, pages } = siteOf(ORIGIN, { "": clean("", body), "gone.html": 404 });
    const broken = auditSite(data, () => pages).findings.filter((f) => f.rule === "broken-link");
    expect(broken.map((f) => [f.url, f.detail.href, f.detail.status])).toEqual([[ORIGIN, `${ORIGIN}gone.html`, 404]]);
  });

  test("links to what robots.txt disallows are blocked-by-robots on the linking page; robots.txt's unreadable lines are robots-txt", () => {
    const robots = {
      url: `${ORIGIN}robots.txt`,
      content:
        "Disallow: /early/\nUser-agent: *\nDisalow: /typo/\nDisallow: private\nAllow: /a$b\nSitemap: ftp2://x\nno colon\n",
    };
    const { data, pages } = siteOf(
      ORIGIN,
      { "": clean() },
      { robots, blocked: [{ url: `${ORIGIN}private/`, linked_from: [ORIGIN] }] },
    );
    const said = auditSite(data, () => pages).findings.map((f) => `${f.rule} ${f.message}`);
    expect(said.sort()).toEqual(
      [
        `blocked-by-robots links to ${ORIGIN}private/, which robots.txt disallows`,
        "robots-txt line 1: No user-agent specified: 'Disallow: /early/'",
        "robots-txt line 3: Unknown directive: 'Disalow: /typo/'",
        `robots-txt line 4: Pattern should either be empty, start with "/" or "*": 'Disallow: private'`,
        `robots-txt line 5: "$" should only be used at the end of the pattern: 'Allow: /a$b'`,
        "robots-txt line 6: Invalid sitemap URL protocol: 'Sitemap: ftp2://x'",
        "robots-txt line 7: Syntax not understood: 'no colon'",
      ].sort(),
    );
  });
});

describe("findings", () => {
  const messy = {
    "": clean("", '<a href="/gone.html">gone</a><img src="/a.png">'),
    "b.html": clean()
      .replace(' lang="en"', "")
      .replace(/<title>[^<]*<\/title>/, ""),
    "gone.html": 404,
  };

  test("are ordered by severity, then the rules' order, then the pages' order; each id is the rule, page and key hashed", () => {
    const { data, pages } = siteOf(ORIGIN, messy);
    const all = auditSite(data, () => pages).findings;
    const rank = { high: 3, medium: 2, low: 1 };
    const place = new Map(pages.map((p, i) => [p.url, i]));
    const keys = all.map(
      (f) =>
        [
          -rank[f.severity],
          RULE_IDS.indexOf(f.rule as (typeof RULE_IDS)[number]),
          place.get(f.url) ?? pages.length,
        ] as const,
    );
    expect(keys).toEqual([...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]));
    expect(all.every((f) => /^f-[0-9a-f]{12}$/.test(f.id))).toBe(true);
    expect(new Set(all.map((f) => f.id)).size).toBe(all.length);
  });

  test("are the same, ids and order, however often the site is audited, and the same findings in any page order; pages are counted", () => {
    const { data, pages } = siteOf(ORIGIN, messy);
    const once = auditSite(data, () => pages);
    expect(auditSite(data, () => pages)).toEqual(once);
    const reversed = auditSite(data, () => [...pages].reverse());
    const byId = (fs: readonly { id: string }[]) => [...fs].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(byId(reversed.findings)).toEqual(byId(once.findings));
    expect(reversed.findings.map((f) => f.rule)).toEqual(once.findings.map((f) => f.rule));
    expect(once.pages).toBe(3);
  });
});

describe("the edge corpus, judged as Lighthouse judged it (test/fixtures/seo-edges/lighthouse.json)", () => {
  const EDGES = join(import.meta.dir, "..", "..", "..", "test", "fixtures", "seo-edges");
  const cases = JSON.parse(readFileSync(join(EDGES, "cases.json"), "utf8")).cases as EdgeCase[];
  const recorded = JSON.parse(readFileSync(join(EDGES, "lighthouse.json"), "utf8")) as {
    verdicts: Record<string, Record<string, "pass" | "fail" | "n/a">>;
  };
  const seo = verdicts(EDGES, recorded.verdicts);

  for (const c of cases)
    test(`${c.file}: ${c.about} (${c.audit}: Lighthouse says ${recorded.verdicts[c.file]?.[c.audit]})`, () => {
      // Every audit Lighthouse judged on the page that seo has a rule of, not only the one the case is about.
      const lighthouse = Object.entries(recorded.verdicts[c.file] ?? {}).filter(([a]) => RULE_IDS.includes(a as never));
      expect(lighthouse.map(([a]) => a)).toContain(c.audit);
      expect(seo(c.file)).toEqual(Object.fromEntries(lighthouse));
    });
});
