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
  /** The text of the body's paragraphs, in order, whitespace-collapsed. */
  paragraphs: string[];
}

export function locate(text: string): Located {
  const out: Located = { html: null, headOpen: null, headClose: null, charset: null, viewport: null, titleClose: null, description: null, canonicals: [], anchors: [], paragraphs: [] };
  let inP = 0;
  let para = "";
  const parser: Parser = new Parser(
    {
      onopentag(name, attrs) {
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
        else if (name === "p") inP++;
      },
      ontext(t) {
        if (inP > 0) para += t;
      },
      onclosetag(name, implied) {
        if (implied) return;
        if (name === "head") out.headClose ??= { start: parser.startIndex, end: parser.endIndex + 1 };
        else if (name === "title") out.titleClose ??= { start: parser.startIndex, end: parser.endIndex + 1 };
        else if (name === "p" && inP > 0 && --inP === 0) {
          const clean = para.replace(/\s+/g, " ").trim();
          if (clean) out.paragraphs.push(clean);
          para = "";
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(text);
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

export const escapeAttr = (s: string): string => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
