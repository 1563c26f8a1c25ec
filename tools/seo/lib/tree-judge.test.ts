/** An edit judged on the tree a browser builds: only what the action declares may differ. */
import { describe, expect, test } from "bun:test";
import { applyEdits, type Edit } from "./edits.ts";
import { type Declared, treeBeyond } from "./tree-judge.ts";

const judged = (before: string, edits: Edit[], declared: Declared): string[] => {
  const after = applyEdits(before, edits);
  if (typeof after !== "string") throw new Error("the edit does not fit");
  return treeBeyond(before, after, edits, declared);
};
const insertAfter = (page: string, anchor: string, insert: string): Edit[] => [
  { at: page.indexOf(anchor) + anchor.length, remove: "", insert },
];
const CANONICAL = { adds: { name: "link", attrs: { rel: "canonical", href: "https://x.example/" } } };
const PAGE = `<!doctype html>\n<html>\n<head>\n  <meta charset="utf-8">\n  <title>t</title>\n</head>\n<body><p>x</p></body>\n</html>\n`;

describe("the tree before and after an edit", () => {
  test("one canonical link added to <head>, as declared: nothing beyond", () => {
    const edits = insertAfter(PAGE, '<meta charset="utf-8">', '\n  <link rel="canonical" href="https://x.example/">');
    expect(judged(PAGE, edits, CANONICAL)).toEqual([]);
  });

  test("the same text inside a script's double-escaped text adds no element, and changes the script", () => {
    const page = PAGE.replace(
      "<title>",
      '<script>var s = `<!--<script></script><meta charset="utf-8">\n`;</script>\n  <title>',
    );
    const at = page.indexOf('<meta charset="utf-8">', page.indexOf("<script>")) + '<meta charset="utf-8">'.length;
    const edits = [{ at, remove: "", insert: '\n  <link rel="canonical" href="https://x.example/">' }];
    expect(judged(page, edits, CANONICAL)[0]).toContain("does not add exactly one <link>");
  });

  test("an added element's attribute that closes another's quoted value: a neighbour changes, refused", () => {
    const page = PAGE.replace("<body>", "<body><div title='").replace("</body>", "'>x</div></body>");
    const edits = insertAfter(
      page,
      "<div title='",
      `<link rel="canonical" href="https://x.example/'onfocus='alert(1)'">`,
    );
    expect(judged(page, edits, CANONICAL)).not.toEqual([]);
  });

  test("removing a canonical a browser reads as a script's text: no canonical removed, refused", () => {
    const tag = `<link rel="canonical" href="https://x.example/*/'">`;
    const page = PAGE.replace("<title>", `<script>/*<!--<script></script>${tag}*/alert(1)</script>\n  <title>`);
    const edits = [{ at: page.indexOf(tag), remove: tag, insert: "" }];
    expect(judged(page, edits, { removesCanonicals: true })[0]).toContain("removes 0 canonical link(s)");
  });

  test("an attribute set on the element named, as declared; on another element, or another attribute too, refused", () => {
    const page = PAGE.replace("<p>x</p>", '<p><a href="/abuot.html">a</a> <a href="/x.html">b</a></p>');
    const sets = { sets: { name: "a", attr: "href", from: "/abuot.html", to: "/about.html", count: 1 } };
    const at = page.indexOf("/abuot.html");
    expect(judged(page, [{ at, remove: "/abuot.html", insert: "/about.html" }], sets)).toEqual([]);
    const other = page.indexOf("/x.html");
    expect(judged(page, [{ at: other, remove: "/x.html", insert: "/about.html" }], sets)).not.toEqual([]);
    const more = [{ at, remove: '/abuot.html"', insert: '/about.html" onclick="x"' }];
    expect(judged(page, more, sets)).not.toEqual([]);
  });

  test("a comment opened by an edit swallows what follows: refused", () => {
    const edits = insertAfter(PAGE, '<meta charset="utf-8">', "\n  <!--");
    expect(judged(PAGE, edits, {})).not.toEqual([]);
  });
});
