/**
 * Where things are in a page's source text, for minimal edits: what a
 * browser's tree holds (dom.ts, parse5), each element with the span of its
 * start tag and of each attribute in the source (UTF-16 offsets). A canonical
 * inside a script's text, or a meta inside an attribute value, is no element
 * here, as it is none in a browser.
 */
import {
  attrsOf,
  childrenOf,
  type Document,
  documentParts,
  type Element,
  elementsUnder,
  HTML_NS,
  isElement,
  isHtml,
  type Node,
  parseDocument,
} from "./dom.ts";

export interface Span {
  start: number;
  /** Exclusive. */
  end: number;
}

export interface TagSpan extends Span {
  attrs: Record<string, string>;
  /** Each attribute's whole `name=value` in the source. */
  attrSpans: Record<string, Span>;
}

export interface Located {
  html: TagSpan | null;
  headOpen: TagSpan | null;
  headClose: Span | null;
  charset: TagSpan | null;
  viewport: TagSpan | null;
  titleClose: Span | null;
  description: TagSpan | null;
  /** The canonical links in <head>. */
  canonicals: TagSpan[];
  anchors: TagSpan[];
  /**
   * The text of the page's main-content paragraphs, in order,
   * whitespace-collapsed: those in <main>, <article> or role=main when there
   * are any, and never those in navigation, headers, footers, sidebars or hidden.
   */
  paragraphs: string[];
}

const CHROME_TAGS = new Set(["nav", "header", "footer", "aside", "form", "menu", "dialog", "template", "noscript"]);
const CHROME_ROLES = new Set([
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "search",
  "menu",
  "menubar",
  "dialog",
]);
const CHROME_NAMES =
  /(^|[\s_-])(nav|navbar|navigation|sidebar|sphinxsidebar|menu|breadcrumbs?|footer|header|masthead|toc|related|cookies?|banner|skip)($|[\s_-])/i;
const MAIN_TAGS = new Set(["main", "article"]);
const NO_TEXT = new Set(["script", "style"]);

/** Whether an element is page chrome (navigation, header, footer, sidebar, hidden), not content. */
const isChrome = (name: string, attrs: Record<string, string>): boolean =>
  CHROME_TAGS.has(name) ||
  CHROME_ROLES.has((attrs.role ?? "").trim().toLowerCase()) ||
  CHROME_NAMES.test(`${attrs.class ?? ""} ${attrs.id ?? ""}`) ||
  "hidden" in attrs;

/** The text under a paragraph, chrome's and scripts' left out. */
function textOf(n: Node): string {
  if (n.nodeName === "#text") return (n as { value: string }).value;
  if (isElement(n) && (NO_TEXT.has(n.tagName) || isChrome(n.tagName, attrsOf(n)))) return "";
  return childrenOf(n).map(textOf).join("");
}

/** The main content's paragraphs: chrome's never, main's when there are any. */
function paragraphsOf(root: Node): string[] {
  const main: string[] = [];
  const rest: string[] = [];
  const walk = (n: Node, inMain: boolean): void => {
    if (!isElement(n)) return;
    const attrs = attrsOf(n);
    if (isChrome(n.tagName, attrs)) return;
    const here = inMain || MAIN_TAGS.has(n.tagName) || (attrs.role ?? "").trim().toLowerCase() === "main";
    if (n.tagName === "p" && n.namespaceURI === HTML_NS) {
      const clean = textOf(n).replace(/\s+/g, " ").trim();
      if (clean) (here ? main : rest).push(clean);
      return;
    }
    for (const c of n.childNodes) walk(c, here);
  };
  walk(root, false);
  return main.length > 0 ? main : rest;
}

/** The element's start tag where the source has one (an implied element has none). */
function tagSpan(el: Element | undefined): TagSpan | null {
  const loc = el?.sourceCodeLocation?.startTag;
  if (!el || !loc) return null;
  const attrSpans: Record<string, Span> = {};
  for (const [name, a] of Object.entries(el.sourceCodeLocation?.attrs ?? {}))
    attrSpans[name] = { start: a.startOffset, end: a.endOffset };
  return { start: loc.startOffset, end: loc.endOffset, attrs: attrsOf(el), attrSpans };
}

const endTagOf = (el: Element | undefined): Span | null => {
  const loc = el?.sourceCodeLocation?.endTag;
  return loc ? { start: loc.startOffset, end: loc.endOffset } : null;
};

const relOf = (el: Element): string[] => (attrsOf(el).rel ?? "").toLowerCase().split(/\s+/);

/** What a fix edits in the page `text`, from its tree (`doc`, when already parsed). */
export function locate(text: string, doc: Document = parseDocument(text)): Located {
  const { html, head, body } = documentParts(doc);
  const inHead = head.childNodes.filter(isElement);
  const meta = (test: (a: Record<string, string>) => boolean) =>
    tagSpan(inHead.find((e) => isHtml(e, "meta") && test(attrsOf(e))));
  const named = (name: string) => (a: Record<string, string>) => (a.name ?? "").toLowerCase() === name;
  return {
    html: tagSpan(html),
    headOpen: tagSpan(head),
    headClose: endTagOf(head),
    charset: meta((a) => "charset" in a),
    viewport: meta(named("viewport")),
    titleClose: endTagOf(inHead.find((e) => isHtml(e, "title"))),
    description: meta(named("description")),
    canonicals: inHead
      .filter((e) => isHtml(e, "link") && relOf(e).includes("canonical"))
      .map(tagSpan)
      .filter((s) => s !== null),
    anchors: [...elementsUnder(doc)]
      .filter((e) => isHtml(e, "a") && attrsOf(e).href !== undefined)
      .map(tagSpan)
      .filter((s) => s !== null),
    paragraphs: body ? paragraphsOf(body) : [],
  };
}

/** The span of an attribute's value inside a tag (quotes excluded), or null. */
export function attrValueSpan(text: string, tag: TagSpan, name: string): Span | null {
  const at = tag.attrSpans[name];
  if (!at) return null;
  const m = /^[^\s=]+\s*=\s*(["']?)/.exec(text.slice(at.start, at.end));
  if (!m) return null;
  const start = at.start + m[0].length;
  return { start, end: m[1] ? at.end - 1 : at.end };
}

/** The whitespace a line starts with. */
export function indentAt(text: string, index: number): string {
  const lineStart = text.lastIndexOf("\n", index - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** An attribute value written between double quotes: every character that could end it or start markup, escaped. */
export const escapeAttr = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/'/g, "&#39;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
