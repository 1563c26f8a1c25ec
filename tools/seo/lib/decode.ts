/**
 * A page's bytes to text as a browser decodes them (HTML's "determine the
 * character encoding"): a byte order mark, then the HTTP Content-Type
 * charset, then a <meta charset> or http-equiv Content-Type found by the
 * prescan of the first 1,024 bytes, then a fallback: UTF-8 when the bytes are
 * valid UTF-8, else windows-1252 (what browsers use for undeclared Western
 * pages). The encodings are Bun's TextDecoder, which carries the WHATWG
 * Encoding Standard's set, so no package is needed.
 */

/** Bun's types name only the encodings every runtime has; its TextDecoder takes every WHATWG label. */
const decoder = (label: string, fatal = false): TextDecoder => new TextDecoder(label as "utf-8", { fatal });

export type EncodingSource = "bom" | "content-type" | "meta" | "fallback";

export interface Decoded {
  text: string;
  /** The WHATWG name of the encoding used, e.g. "utf-8", "windows-1252". */
  encoding: string;
  source: EncodingSource;
}

/** The WHATWG encoding a label names, or null when it names none. */
export function encodingOf(label: string): string | null {
  try {
    return decoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

function bomOf(b: Uint8Array): { encoding: string; length: number } | null {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { encoding: "utf-8", length: 3 };
  if (b[0] === 0xfe && b[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  if (b[0] === 0xff && b[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  return null;
}

/** HTML's "extracting a character encoding from a meta element": the charset=value in a content attribute. */
export function charsetInContent(content: string): string | null {
  const m = /charset\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s;"']+))/i.exec(content);
  if (!m) return null;
  return m[1] ?? m[2] ?? m[3] ?? null;
}

const ATTR = /([^\s/>=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?/y;

/** A tag's attributes from just after its name to its `>`; returns them and where the tag ends. */
function attributesAt(s: string, at: number): { attrs: Map<string, string>; end: number } {
  const attrs = new Map<string, string>();
  let i = at;
  for (;;) {
    while (i < s.length && /[\s/]/.test(s[i]!)) i++;
    if (i >= s.length || s[i] === ">") return { attrs, end: i + 1 };
    ATTR.lastIndex = i;
    const m = ATTR.exec(s);
    if (!m) return { attrs, end: s.length };
    const name = m[1]!.toLowerCase();
    if (!attrs.has(name)) attrs.set(name, m[2] ?? m[3] ?? m[4] ?? "");
    i = ATTR.lastIndex;
  }
}

/** The label a <meta> tag declares, per the prescan's rules (charset, or http-equiv=content-type with content). */
function metaLabel(attrs: Map<string, string>): string | null {
  if (attrs.has("charset")) return attrs.get("charset")!;
  if ((attrs.get("http-equiv") ?? "").trim().toLowerCase() === "content-type" && attrs.has("content"))
    return charsetInContent(attrs.get("content")!);
  return null;
}

/** HTML's prescan of the first 1,024 bytes for a declared encoding, skipping comments and other tags. */
export function prescan(bytes: Uint8Array): string | null {
  const s = decoder("windows-1252").decode(bytes.subarray(0, 1024));
  let i = 0;
  while (i < s.length) {
    if (s.startsWith("<!--", i)) {
      const end = s.indexOf("-->", i + 2);
      if (end === -1) return null;
      i = end + 3;
    } else if (/^<meta[\s/]/i.test(s.slice(i, i + 6))) {
      const { attrs, end } = attributesAt(s, i + 5);
      const label = metaLabel(attrs);
      const encoding = label === null ? null : encodingOf(label);
      // A page cannot declare UTF-16 in its own ASCII bytes; x-user-defined from a meta is windows-1252.
      if (encoding)
        return encoding.startsWith("utf-16") ? "utf-8" : encoding === "x-user-defined" ? "windows-1252" : encoding;
      i = end;
    } else if (/^<\/?[a-z]/i.test(s.slice(i, i + 3))) {
      let j = i + (s[i + 1] === "/" ? 2 : 1);
      while (j < s.length && !/[\s/>]/.test(s[j]!)) j++;
      i = attributesAt(s, j).end;
    } else if (s.startsWith("<!", i) || s.startsWith("</", i) || s.startsWith("<?", i)) {
      const end = s.indexOf(">", i);
      if (end === -1) return null;
      i = end + 1;
    } else i++;
  }
  return null;
}

function validUtf8(bytes: Uint8Array): boolean {
  try {
    decoder("utf-8", true).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

export function decodeHtml(bytes: Uint8Array, contentType: string | null): Decoded {
  const decode = (encoding: string, source: EncodingSource, from = 0): Decoded => ({
    text: decoder(encoding).decode(bytes.subarray(from)),
    encoding,
    source,
  });
  const bom = bomOf(bytes);
  if (bom) return decode(bom.encoding, "bom", bom.length);
  const transport = contentType === null ? null : charsetInContent(contentType.split(";").slice(1).join(";"));
  const fromHeader = transport === null ? null : encodingOf(transport.replace(/^["']|["']$/g, ""));
  if (fromHeader) return decode(fromHeader, "content-type");
  const declared = prescan(bytes);
  if (declared) return decode(declared, "meta");
  return decode(validUtf8(bytes) ? "utf-8" : "windows-1252", "fallback");
}
