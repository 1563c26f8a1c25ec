/**
 * parsePage, in-process: what the audit's rules read of a page, from real
 * HTML (strings here, and the edge corpus's pages), as a browser's parser and
 * Lighthouse would read it.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePage } from "./html-parse.ts";

const PAGE = "https://harbour.example/guides/tides.html";
const EDGES = join(import.meta.dir, "..", "..", "..", "test", "fixtures", "seo-edges");
const edge = (file: string) => parsePage(readFileSync(join(EDGES, file), "utf8"), `http://127.0.0.1/${file}`);

/** A page with `head` in its <head> and `body` in its <body>. */
const page = (head: string, body = "", html = "<html>") =>
  parsePage(`<!doctype html>\n${html}\n<head>\n${head}\n</head>\n<body>\n${body}\n</body>\n</html>\n`, PAGE);

describe("the head", () => {
  test("the first <title>, whitespace collapsed and entities decoded; every one counted; one inside <svg> is not the page's", () => {
    const p = page(
      "<title>\n  Tides &amp;   ferries\n</title><title>Second</title>",
      "<svg><title>An icon</title></svg>",
    );
    expect([p.title, p.title_count]).toEqual(["Tides & ferries", 2]);
    expect([page("<title> </title>").title, page("").title, page("").title_count]).toEqual(["", null, 0]);
  });

  test("the first meta description, collapsed; every one in the head counted; one in the body is not read", () => {
    const p = page(
      '<meta name="Description" content="  Tides\n and ferries ">\n<meta name="description" content="second">',
    );
    expect([p.meta_description, p.description_count]).toEqual(["Tides and ferries", 2]);
    expect([
      edge("meta-description-body.html").meta_description,
      edge("meta-description-body.html").description_count,
    ]).toEqual([null, 0]);
  });

  test("a head element after </head> but before any body content is still the head's, as a browser's parser places it", () => {
    expect(edge("head-after-close.html").meta_description).toStartWith("A description after the head closed");
    // Text or a body element ends the head: a meta after them is the body's.
    expect(page("", "").meta_description).toBeNull();
    const afterText = parsePage(
      `<html><head><title>t</title>words<meta name="description" content="late"></head>`,
      PAGE,
    );
    const afterDiv = parsePage(`<html><head><div></div><meta name="description" content="late"></head>`, PAGE);
    expect([afterText.meta_description, afterDiv.meta_description]).toEqual([null, null]);
  });

  test("canonicals: every head one kept raw, the first resolved against <base href> (dir/index.html is dir/); an empty href is skipped", () => {
    const p = page(
      '<base href="https://harbour.example/docs/"><link rel="canonical" href=""><link rel="CANONICAL" href="tides/index.html#top"><link rel="canonical" href="/other.html">',
    );
    expect([p.canonical_raw, p.canonical]).toEqual([
      ["tides/index.html#top", "/other.html"],
      "https://harbour.example/docs/tides/",
    ]);
    // Lighthouse matches rel as a whole: "canonical nofollow" is not a canonical.
    expect(page('<link rel="canonical nofollow" href="/x.html">').canonical_raw).toEqual([]);
    expect([edge("canonical-body.html").canonical_raw, edge("canonical-body.html").canonical]).toEqual([[], null]);
  });

  test("hreflang alternates from the head only, each raw and resolved", () => {
    const p = page(
      '<link rel="alternate" hreflang="de" href="/de/tides.html"><link rel="alternate" hreflang="x-default" href="">',
    );
    expect(p.hreflang).toEqual([
      { lang: "de", href: "https://harbour.example/de/tides.html", raw: "/de/tides.html" },
      { lang: "x-default", href: null, raw: "" },
    ]);
    expect(edge("hreflang-body.html").hreflang).toEqual([]);
  });

  test("robots metas by name (robots and the four bots Lighthouse reads), joined for display; other names are not robots metas", () => {
    const p = page(
      '<meta name="robots" content="noindex"><meta name="GoogleBot" content=" nofollow "><meta name="slurp" content="noindex">',
    );
    expect(p.robots_metas).toEqual([
      { name: "robots", content: "noindex" },
      { name: "googlebot", content: " nofollow " },
    ]);
    expect([p.robots_meta, page("").robots_meta]).toEqual(["noindex, nofollow", null]);
  });

  test("the first viewport, trimmed; <html lang> trimmed, empty as given, absent as null", () => {
    const p = page('<meta name="viewport" content=" width=device-width "><meta name="viewport" content="x">');
    expect(p.viewport).toBe("width=device-width");
    expect([page("", "", '<html lang=" en-GB ">').lang, page("", "", '<html lang="">').lang, page("").lang]).toEqual([
      "en-GB",
      "",
      null,
    ]);
  });
});

describe("the body", () => {
  test("headings by level with their text; every <h1> counted, though only the first 200 headings are kept", () => {
    const p = page("", "<h1>Tides <em>and</em>\n ferries</h1><h2>Times</h2><h3>\n</h3>");
    expect([p.headings, p.h1_count]).toEqual([
      [
        { level: 1, text: "Tides and ferries" },
        { level: 2, text: "Times" },
        { level: 3, text: "" },
      ],
      1,
    ]);
    const many = page("", "<h1>one</h1>".repeat(250));
    expect([many.h1_count, many.headings.length]).toEqual([250, 200]);
  });

  test("words: the text a reader sees, not scripts, styles, templates or the title", () => {
    const p = page(
      "<title>four words of title</title><style>p { x: y }</style>",
      "<p>one two three</p><script>var a = 1, b = 2;</script><template>hidden words</template><noscript>no</noscript> four",
    );
    expect(p.word_count).toBe(4);
  });

  test("links resolved against <base href>; a fragment, mailto: or javascript: link has no href; internal means the page's origin", () => {
    const p = page(
      '<base href="https://harbour.example/docs/">',
      '<a href="ferries.html#top" rel="next">Ferries</a><a href="#tides">Tides</a><a href="mailto:a@b.example">Mail</a><a href="javascript:void(0)">Menu</a><a href="https://elsewhere.example/">Away</a>',
    );
    expect(p.links.map((l) => [l.raw, l.href, l.internal, l.crawlable, l.rel])).toEqual([
      ["ferries.html#top", "https://harbour.example/docs/ferries.html", true, true, "next"],
      ["#tides", null, false, true, null],
      ["mailto:a@b.example", null, false, true, null],
      ["javascript:void(0)", null, false, false, null],
      ["https://elsewhere.example/", "https://elsewhere.example/", false, true, null],
    ]);
  });

  test("crawlable anchors as Lighthouse judges them: no href or file: fails; a name, an id, a role or aria-current placeholder passes", () => {
    const p = page(
      "",
      '<a>bare</a><a href="file:///etc/passwd">file</a><a name="top">named</a><a id="x" href="">id</a><a role="button">role</a><a aria-current="page">here</a><a href="http://[::1">bad</a>',
    );
    expect(p.links.map((l) => [l.text, l.crawlable])).toEqual([
      ["bare", false],
      ["file", false],
      ["named", true],
      ["id", true],
      ["role", true],
      ["here", true],
      ["bad", false],
    ]);
  });

  test("a link's text is its innerText: hidden text and an image's alt are not in it; an <area> is named by its alt", () => {
    expect(edge("link-text-hidden.html").links.map((l) => l.text)).toEqual([
      "Ferry timetable",
      "here",
      "Back to the list of edge cases",
    ]);
    expect(edge("link-text-image-alt.html").links[0]!.text).toBe("");
    expect(page("", '<map><area href="/a.html" alt="Harbour map"></map>').links[0]!.text).toBe("Harbour map");
  });

  test("a link's language is its nearest element's lang, else null", () => {
    expect(edge("link-text-own-lang.html").links.map((l) => [l.text, l.lang])).toEqual([
      ["click here", "fr"],
      ["Back to the list of edge cases", "en"],
    ]);
    expect(page("", '<a href="/x.html">x</a>').links[0]!.lang).toBeNull();
  });

  test("images: src resolved, alt collapsed (only spaces kept as one), hidden by an attribute, a style or aria-hidden up the tree, named, presentational", () => {
    const p = page(
      "",
      '<img src="a.png" alt=" Harbour\n at dawn "><img src="b.png" alt="   "><img src="c.png" hidden><div style="display: none"><img src="d.png"></div><span aria-hidden="true"><img src="e.png"></span><img src="f.png" title="Ferry"><img src="g.png" role="presentation"><img>',
    );
    expect(
      p.images.map((i) => [
        i.src?.replace("https://harbour.example/guides/", ""),
        i.alt,
        i.hidden,
        i.named,
        i.presentational,
      ]),
    ).toEqual([
      ["a.png", "Harbour at dawn", false, false, false],
      ["b.png", " ", false, false, false],
      ["c.png", null, true, false, false],
      ["d.png", null, true, false, false],
      ["e.png", null, true, false, false],
      ["f.png", null, false, true, false],
      ["g.png", null, false, false, true],
      [undefined, null, false, false, false],
    ]);
  });

  test("tag and attribute names in any case are read as lower case", () => {
    const p = parsePage(
      '<HTML LANG="en"><HEAD><TITLE>Upper</TITLE><META NAME="description" CONTENT="d"></HEAD><BODY><A HREF="/x.html">x</A></BODY></HTML>',
      PAGE,
    );
    expect([p.lang, p.title, p.meta_description, p.links[0]!.href]).toEqual([
      "en",
      "Upper",
      "d",
      "https://harbour.example/x.html",
    ]);
  });
});
