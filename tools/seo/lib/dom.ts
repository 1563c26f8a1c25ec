/**
 * A page as a browser builds it: parse5, a WHATWG-conformant parser (the
 * script data double-escaped state, `<![CDATA[` as a bogus comment outside
 * foreign content, foster parenting, attributes of a second <html> merged
 * into the first…), with each node's place in the source (UTF-16 offsets).
 * What seo edits, and what the gate judges an edit by, is read from this tree.
 */
import { type DefaultTreeAdapterTypes as T, html, parse } from "parse5";

export type Document = T.Document;
export type Element = T.Element;
export type Node = T.ChildNode | T.Document | T.DocumentFragment;

export const HTML_NS = html.NS.HTML;

/**
 * The last two pages parsed, by their text. The planner, the gate's read-back
 * and apply judge a page's items one after another, and each item finds the
 * page the one before it left: parsed once as that item's "after", it is this
 * item's "before". Nothing in seo changes a parsed tree, so one tree serves both.
 */
const recent: { text: string; doc: Document }[] = [];

export function parseDocument(text: string): Document {
  const seen = recent.find((r) => r.text === text);
  if (seen) return seen.doc;
  const doc = parse(text, { sourceCodeLocationInfo: true });
  recent.unshift({ text, doc });
  recent.length = Math.min(recent.length, 2);
  return doc;
}

export const isElement = (n: Node): n is Element => "tagName" in n;

/** An HTML element (not SVG or MathML) of this name. */
export const isHtml = (n: Node, name: string): n is Element =>
  isElement(n) && n.tagName === name && n.namespaceURI === HTML_NS;

export const attrOf = (el: Element, name: string): string | undefined => el.attrs.find((a) => a.name === name)?.value;

export const attrsOf = (el: Element): Record<string, string> =>
  Object.fromEntries(el.attrs.map((a) => [a.name, a.value]));

/** A node's children, a <template>'s contents included (they are another fragment in the tree). */
export function childrenOf(n: Node): readonly Node[] {
  const kids: Node[] = "childNodes" in n ? [...n.childNodes] : [];
  if (isHtml(n, "template")) kids.push((n as T.Template).content);
  return kids;
}

/** The document's <html>, <head> and <body>, as the tree builder made them (each always exists). */
export function documentParts(doc: Document): { html: Element; head: Element; body: Element } {
  const root = doc.childNodes.find((n) => isHtml(n, "html")) as Element;
  const head = root.childNodes.find((n) => isHtml(n, "head")) as Element;
  const body = root.childNodes.find((n) => isHtml(n, "body") || isHtml(n, "frameset")) as Element;
  return { html: root, head, body };
}

/** Every element under `n` in document order (template contents excluded: they are not part of the page). */
export function* elementsUnder(n: Node): Generator<Element> {
  for (const c of "childNodes" in n ? n.childNodes : []) {
    if (!isElement(c)) continue;
    yield c;
    yield* elementsUnder(c);
  }
}
