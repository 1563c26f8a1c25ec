/**
 * Where things are in a page's source text, for minimal edits: tag spans as
 * htmlparser2 reports them (UTF-16 offsets into the text), and attribute
 * value spans found inside a tag's own text.
 */
import { Parser } from "htmlparser2";

export interface Span {
  start: number;
  /** Exclusive. */
  end: number;
}

export interface TagSpan extends Span {
  attrs: Record<string, string>;
}

export interface Located {
  html: TagSpan | null;
  headOpen: TagSpan | null;
  headClose: Span | null;
  charset: TagSpan | null;
  viewport: TagSpan | null;
  titleClose: Span | null;
  description: TagSpan | null;
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

/** Whether an element is page chrome (navigation, header, footer, sidebar, hidden), not content. */
const isChrome = (name: string, attrs: Record<string, string>): boolean =>
  CHROME_TAGS.has(name) ||
  CHROME_ROLES.has((attrs.role ?? "").trim().toLowerCase()) ||
  CHROME_NAMES.test(`${attrs.class ?? ""} ${attrs.id ?? ""}`) ||
  "hidden" in attrs;

/** The main content's paragraphs, collected as the parser walks: chrome's never, main's when there are any. */
class Paragraphs {
  // Per open element: inside chrome, inside main content.
  readonly stack: { name: string; chrome: boolean; main: boolean }[] = [];
  readonly #main: string[] = [];
  readonly #rest: string[] = [];
  #depth = 0;
  #text = "";
  #inMain = false;

  open(name: string, attrs: Record<string, string>): void {
    const parent = this.stack.at(-1);
    this.stack.push({
      name,
      chrome: (parent?.chrome ?? false) || isChrome(name, attrs),
      main: (parent?.main ?? false) || MAIN_TAGS.has(name) || (attrs.role ?? "").trim().toLowerCase() === "main",
    });
    if (name === "p" && this.#depth++ === 0) this.#inMain = this.stack.at(-1)!.main;
  }

  text(t: string): void {
    if (this.#depth > 0 && !this.stack.at(-1)?.chrome) this.#text += t;
  }

  close(name: string): void {
    const at = this.stack.findLastIndex((o) => o.name === name);
    if (at !== -1) this.stack.length = at;
    if (name !== "p" || this.#depth === 0 || --this.#depth > 0) return;
    const clean = this.#text.replace(/\s+/g, " ").trim();
    if (clean) (this.#inMain ? this.#main : this.#rest).push(clean);
    this.#text = "";
  }

  get paragraphs(): string[] {
    return this.#main.length > 0 ? this.#main : this.#rest;
  }
}

export function locate(text: string): Located {
  const out: Located = {
    html: null,
    headOpen: null,
    headClose: null,
    charset: null,
    viewport: null,
    titleClose: null,
    description: null,
    canonicals: [],
    anchors: [],
    paragraphs: [],
  };
  const paragraphs = new Paragraphs();
  const parser: Parser = new Parser(
    {
      onopentag(name, attrs) {
        paragraphs.open(name, attrs);
        const span: TagSpan = { start: parser.startIndex, end: parser.endIndex + 1, attrs };
        const rel = (attrs.rel ?? "").toLowerCase().split(/\s+/);
        const meta = (attrs.name ?? "").toLowerCase();
        if (name === "html") out.html ??= span;
        else if (name === "head") out.headOpen ??= span;
        else if (name === "meta" && "charset" in attrs) out.charset ??= span;
        else if (name === "meta" && meta === "viewport") out.viewport ??= span;
        else if (name === "meta" && meta === "description") out.description ??= span;
        else if (name === "link" && rel.includes("canonical")) out.canonicals.push(span);
        else if (name === "a" && "href" in attrs) out.anchors.push(span);
      },
      ontext: (t) => paragraphs.text(t),
      onclosetag(name, implied) {
        paragraphs.close(name);
        if (implied) return;
        if (name === "head") out.headClose ??= { start: parser.startIndex, end: parser.endIndex + 1 };
        else if (name === "title") out.titleClose ??= { start: parser.startIndex, end: parser.endIndex + 1 };
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(text);
  out.paragraphs = paragraphs.paragraphs;
  return out;
}

/** The span of an attribute's value inside a tag (quotes excluded), or null. */
export function attrValueSpan(text: string, tag: Span, name: string): Span | null {
  const source = text.slice(tag.start, tag.end);
  const re = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'=<>\`]+))`, "i");
  const m = re.exec(source);
  if (!m) return null;
  const value = m[1] ?? m[2] ?? m[3] ?? "";
  const valueStart = tag.start + m.index + m[0].length - value.length - (m[3] === undefined ? 1 : 0);
  return { start: valueStart, end: valueStart + value.length };
}

/** The whitespace a line starts with. */
export function indentAt(text: string, index: number): string {
  const lineStart = text.lastIndexOf("\n", index - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

export const escapeAttr = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
