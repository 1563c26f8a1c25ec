/**
 * An edit judged by what it does to the page a browser builds (dom.ts): the
 * tree before and the tree after, flattened in document order, must be the
 * same but for what the action declares: one element of an exact shape added
 * to <head>, canonical links removed from <head>, or one attribute of named
 * elements set. Anything else that differs, anywhere (a script's text, an
 * attribute gained by a neighbour, a comment, the document's mode), is
 * beyond the action, whatever the edit's text looks like.
 */
import type { Edit } from "./edits.ts";
import {
  attrOf,
  childrenOf,
  type Document,
  documentParts,
  type Element,
  elementsUnder,
  HTML_NS,
  isElement,
  type Node,
  parseDocument,
} from "./dom.ts";

export interface Declared {
  /** One element the edit adds to <head>: its name and exactly these attributes, with no content. */
  adds?: { name: string; attrs: Readonly<Record<string, string>> };
  /** Canonical links of <head> the edit removes, one per edit. */
  removesCanonicals?: true;
  /** An attribute of `count` elements named `name`, set from `from` (null: absent) to `to`. */
  sets?: { name: string; attr: string; from: string | null; to: string; count: number };
}

interface Token {
  key: string;
  el?: Element;
}

/** Text that scripts and style sheets read is kept exactly; other text only as a reader sees it. */
const EXACT_TEXT = new Set(["script", "style"]);
const collapse = (s: string): string => s.replace(/\s+/g, " ").trim();

const openKey = (el: Element): string =>
  `<${el.namespaceURI === HTML_NS ? "" : `${el.namespaceURI} `}${el.tagName}${el.attrs
    .map((a) => ` ${a.prefix ? `${a.prefix}:` : ""}${a.name}=${JSON.stringify(a.value)}`)
    .join("")}>`;

/** The tree in document order, `skip`'s nodes left out, the text on either side of them one text. */
function flatten(doc: Document, skip: ReadonlySet<Node>): Token[] {
  const out: Token[] = [{ key: `document mode ${doc.mode}` }];
  let text: { raw: string; exact: boolean } | null = null;
  const flush = () => {
    const t = text;
    text = null;
    if (!t) return;
    const shown = t.exact ? t.raw : collapse(t.raw);
    if (t.exact || shown) out.push({ key: `text ${JSON.stringify(shown)}` });
  };
  const walk = (n: Node, exact: boolean): void => {
    for (const c of childrenOf(n)) {
      if (skip.has(c)) continue;
      if (c.nodeName === "#text") {
        const value = (c as { value: string }).value;
        if (text && text.exact === exact) text.raw += value;
        else flush(), (text = { raw: value, exact });
        continue;
      }
      flush();
      if (c.nodeName === "#comment") out.push({ key: `comment ${JSON.stringify((c as { data: string }).data)}` });
      else if (c.nodeName === "#documentType") {
        const d = c as { name: string; publicId: string; systemId: string };
        out.push({ key: `doctype ${JSON.stringify([d.name, d.publicId, d.systemId])}` });
      } else if (isElement(c)) {
        out.push({ key: openKey(c), el: c });
        walk(c, EXACT_TEXT.has(c.tagName));
        flush();
        out.push({ key: `</${c.tagName}>` });
      } else {
        out.push({ key: "<template contents>" });
        walk(c, false);
        flush();
        out.push({ key: "</template contents>" });
      }
    }
  };
  walk(doc, false);
  flush();
  return out;
}

/** Where each edit's removed text was in the page before, and its inserted text is in the page after. */
function ranges(edits: readonly Edit[]): { removed: [number, number][]; inserted: [number, number][] } {
  let shift = 0;
  const removed: [number, number][] = [];
  const inserted: [number, number][] = [];
  for (const e of edits) {
    removed.push([e.at, e.at + e.remove.length]);
    inserted.push([e.at + shift, e.at + shift + e.insert.length]);
    shift += e.insert.length - e.remove.length;
  }
  return { removed, inserted };
}

/** The elements whose start tag begins (and, for `whole`, ends) inside one of the ranges. */
function startingIn(doc: Document, spans: readonly [number, number][], whole: boolean): Element[] {
  return [...elementsUnder(doc)].filter((el) => {
    const loc = el.sourceCodeLocation?.startTag;
    return (
      !!loc && spans.some(([s, e]) => loc.startOffset >= s && loc.startOffset < e && (!whole || loc.endOffset <= e))
    );
  });
}

const sameAttrs = (el: Element, want: Readonly<Record<string, string>>): boolean =>
  el.attrs.length === Object.keys(want).length &&
  el.attrs.every((a) => !a.prefix && Object.hasOwn(want, a.name) && want[a.name] === a.value);

const show = (t: Token | undefined): string => {
  const k = t?.key ?? "the end of the page";
  return k.length > 100 ? `${k.slice(0, 100)}…` : k;
};

/** What the edit changes in the browser's tree beyond what it declares (empty: nothing). */
export function treeBeyond(
  before: string,
  after: string,
  edits: readonly Edit[],
  declared: Declared,
  was: Document = parseDocument(before),
): string[] {
  const now = parseDocument(after);
  const { removed, inserted } = ranges(edits);
  const skipWas = new Set<Node>();
  const skipNow = new Set<Node>();
  if (declared.adds) {
    const added = startingIn(now, inserted, false);
    const { name, attrs } = declared.adds;
    const head = documentParts(now).head;
    const fits = (el: Element) =>
      el.namespaceURI === HTML_NS &&
      el.tagName === name &&
      sameAttrs(el, attrs) &&
      el.parentNode === head &&
      el.childNodes.length === 0;
    if (added.length !== 1 || !fits(added[0]!))
      return [`as a browser parses the page, the edit does not add exactly one <${name}> to <head> as declared`];
    skipNow.add(added[0]!);
  }
  if (declared.removesCanonicals) {
    const head = documentParts(was).head;
    const gone = startingIn(was, removed, true).filter(
      (el) =>
        el.namespaceURI === HTML_NS &&
        el.tagName === "link" &&
        el.parentNode === head &&
        (attrOf(el, "rel") ?? "").toLowerCase().split(/\s+/).includes("canonical"),
    );
    if (gone.length !== edits.length)
      return [
        `as a browser parses the page, the edit removes ${gone.length} canonical link(s) of <head>, not ${edits.length}`,
      ];
    for (const el of gone) skipWas.add(el);
  }
  return compare(flatten(was, skipWas), flatten(now, skipNow), declared.sets);
}

/** The two flattened trees, token by token: equal, or a declared attribute change of a declared element. */
function compare(was: Token[], now: Token[], sets: Declared["sets"]): string[] {
  let changed = 0;
  for (let i = 0; i < Math.max(was.length, now.length); i++) {
    const b = was[i];
    const a = now[i];
    if (b && a && b.key === a.key) continue;
    if (sets && b?.el && a?.el && setsOnly(b.el, a.el, sets)) {
      changed++;
      continue;
    }
    return [`as a browser parses the page, the edit changes ${show(b)} into ${show(a)}`];
  }
  if (sets && changed !== sets.count)
    return [
      `as a browser parses the page, the edit sets ${sets.attr} on ${changed} <${sets.name}> element(s), not ${sets.count}`,
    ];
  return [];
}

/** Whether `now` is `was` with only the declared attribute set as declared. */
function setsOnly(was: Element, now: Element, sets: NonNullable<Declared["sets"]>): boolean {
  const rest = (el: Element) => openKey({ ...el, attrs: el.attrs.filter((a) => a.name !== sets.attr || a.prefix) });
  return (
    was.namespaceURI === HTML_NS &&
    now.namespaceURI === HTML_NS &&
    was.tagName === sets.name &&
    now.tagName === sets.name &&
    (attrOf(was, sets.attr) ?? null) === sets.from &&
    attrOf(now, sets.attr) === sets.to &&
    rest(was) === rest(now)
  );
}
