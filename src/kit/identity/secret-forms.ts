/**
 * The forms a known secret is echoed back in, and where a text holds any of
 * them. An upstream or a proxy rarely repeats a key as it was sent: it
 * quotes it in a `Basic` header (base64 after "user:", so at any of three
 * alignments), in hex, upper-cased, cut to its last characters, wrapped
 * across lines, URL-encoded. Every form of at least WINDOW characters is
 * cut into windows of WINDOW characters, hashed once per process; a text is
 * read once, case-folded and with its whitespace (and JSON's `\n`, `\t`,
 * `\r` escapes) skipped, and a rolling hash finds every window it holds. Any
 * slice of WINDOW or more characters of any form therefore matches, wherever
 * the text breaks it.
 */

/** The shortest slice of a secret that is masked on its own. */
export const WINDOW = 16;

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const HEX = "0123456789abcdef";

// Written out with plain loops, not TextEncoder, btoa, regular expressions or array callbacks: every tool
// computes these at start-up for each secret in its environment (an agent's usually holds several), and there
// each built-in's first use costs a fraction of a millisecond.

/** The secret's UTF-8 bytes; an ASCII secret's are its character codes. */
function utf8(value: string): ArrayLike<number> {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0x7f) return new TextEncoder().encode(value);
    bytes.push(c);
  }
  return bytes;
}

/** Base64 in `alphabet`, without its `=` padding, of `bytes` after `shift` zero bytes. */
function base64Unpadded(bytes: ArrayLike<number>, shift: number, alphabet: string): string {
  const n = bytes.length + shift;
  const byte = (i: number): number => (i < shift ? 0 : bytes[i - shift]!);
  let out = "";
  for (let i = 0; i < n; i += 3) {
    const triple = (byte(i) << 16) | (i + 1 < n ? byte(i + 1) << 8 : 0) | (i + 2 < n ? byte(i + 2) : 0);
    out += alphabet[triple >> 18]! + alphabet[(triple >> 12) & 63]!;
    if (i + 1 < n) out += alphabet[(triple >> 6) & 63]!;
    if (i + 2 < n) out += alphabet[triple & 63]!;
  }
  return out;
}

/**
 * The characters of the secret's base64 that do not depend on the bytes
 * around it, when it starts `shift` bytes into a group of three (as after
 * "api:", one byte in): the first `shift` + 1 characters mix in what came
 * before, and a last partial group mixes in what comes after.
 */
function base64Core(bytes: ArrayLike<number>, shift: number, alphabet: string): string {
  const full = base64Unpadded(bytes, shift, alphabet);
  const tailBits = ((bytes.length + shift) * 8) % 6; // bits of the last character that the next byte would change
  return full.slice(shift === 0 ? 0 : shift + 1, tailBits === 0 ? full.length : full.length - 1);
}

/** The secret as it reads inside a JSON string: itself, unless it holds a quote, a backslash, a control character or a surrogate. */
function jsonEscaped(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(value).slice(1, -1);
  }
  return value;
}

/** encodeURIComponent's unreserved marks, beside letters and digits: `-_.!~*'()`. */
const UNRESERVED = "-_.!~*'()";

/** URL-encoded; a lone surrogate (`\ud800` in a JSON string a service answered) has no such form. */
function urlEncoded(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const plain =
      (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || UNRESERVED.includes(value[i]!);
    if (plain) continue;
    try {
      return encodeURIComponent(value);
    } catch {
      return "";
    }
  }
  return value;
}

/** The encoded forms of a secret: URL-encoded, JSON-escaped, hex, and base64 (standard and URL-safe, at each alignment). */
export function formsOf(value: string): string[] {
  const bytes = utf8(value);
  const bare = base64Unpadded(bytes, 0, B64);
  const padded = bare + "==".slice(0, (3 - (bytes.length % 3)) % 3);
  let hex = "";
  for (let i = 0; i < bytes.length; i++) hex += HEX[bytes[i]! >> 4]! + HEX[bytes[i]! & 15]!;
  const all = [value, jsonEscaped(value), urlEncoded(value), padded, bare, base64Unpadded(bytes, 0, B64URL), hex];
  for (const alphabet of [B64, B64URL])
    for (let shift = 0; shift < 3; shift++) all.push(base64Core(bytes, shift, alphabet));
  const forms: string[] = [];
  for (const form of all) if (form.length > 0 && forms.indexOf(form) === -1) forms.push(form);
  return forms;
}

const fold = (c: number): number => (c >= 65 && c <= 90 ? c + 32 : c);
const B = 257;
let B_TOP = 1; // B^(WINDOW-1), for taking the oldest character out of the hash
for (let i = 1; i < WINDOW; i++) B_TOP = Math.imul(B_TOP, B);

/** A text as the windows are read: case-folded codes, whitespace skipped, each code's index in the text. */
interface View {
  readonly codes: Uint16Array;
  readonly at: Int32Array;
  readonly length: number;
  /** Index i of the text is the second character of a backslash escape: a cut there would break a JSON string. */
  readonly escaped: Uint8Array;
}

const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x2028 || c === 0x2029;

function viewOf(text: string): View {
  const codes = new Uint16Array(text.length);
  const at = new Int32Array(text.length);
  const escaped = new Uint8Array(text.length + 1);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) continue;
    if (c === 92 && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      escaped[i + 1] = 1;
      // JSON's escapes of a line break or a tab are a break in the secret, not part of it.
      if (next === 110 || next === 114 || next === 116) {
        i++;
        continue;
      }
      codes[n] = 92;
      at[n++] = i++;
      codes[n] = fold(next);
      at[n++] = i;
      continue;
    }
    codes[n] = fold(c);
    at[n++] = i;
  }
  return { codes, at, length: n, escaped };
}

const FILTER_WORDS = 1 << 11; // 2^16 bits: a thousand windows (five keys) fill under 2 % of them; zeroing more costs start-up

/** A half-open range of a text to replace. */
export interface Span {
  start: number;
  end: number;
}

/** The windows of every form of every secret it is given; `find` names the spans of a text that hold any. */
export class WindowIndex {
  private readonly windows = new Map<number, Window[]>();
  /** One bit per hash bucket: most positions of a text are ruled out without a map lookup. */
  private readonly filter = new Uint32Array(FILTER_WORDS);

  get size(): number {
    return this.windows.size;
  }

  /**
   * Indexes every window of a form, read as a text is read (viewOf: whitespace and JSON's `\n`, `\r`, `\t`
   * escapes skipped), so a secret holding a backslash and an `n` is cut into the windows a text of it gives;
   * hashed as find hashes a text, rolling, so no window is ever made a string. False, and nothing indexed,
   * when the form reads shorter than WINDOW: it is to be matched whole instead.
   */
  add(value: string): boolean {
    const { codes, length } = viewOf(value);
    if (length < WINDOW) return false;
    let h = 0;
    for (let i = 0; i < length; i++) {
      if (i >= WINDOW) h = (h - Math.imul(codes[i - WINDOW]!, B_TOP)) | 0;
      h = (Math.imul(h, B) + codes[i]!) | 0;
      if (i < WINDOW - 1) continue;
      const window: Window = { codes, from: i - WINDOW + 1 };
      this.filter[(h >>> 5) & (FILTER_WORDS - 1)]! |= 1 << (h & 31);
      const list = this.windows.get(h);
      if (!list) this.windows.set(h, [window]);
      else if (!holds(list, codes, window.from)) list.push(window);
    }
    return true;
  }

  find(text: string): Span[] {
    if (this.windows.size === 0 || text.length < WINDOW) return [];
    const v = viewOf(text);
    const filter = this.filter;
    const hits: Span[] = [];
    let h = 0;
    for (let i = 0; i < v.length; i++) {
      if (i >= WINDOW) h = (h - Math.imul(v.codes[i - WINDOW]!, B_TOP)) | 0;
      h = (Math.imul(h, B) + v.codes[i]!) | 0;
      if (i < WINDOW - 1 || (filter[(h >>> 5) & (FILTER_WORDS - 1)]! & (1 << (h & 31))) === 0) continue;
      const list = this.windows.get(h);
      if (!list) continue;
      const from = i - WINDOW + 1;
      if (!holds(list, v.codes, from)) continue;
      const last = hits.at(-1);
      if (last && last.end > from) last.end = i + 1;
      else hits.push({ start: from, end: i + 1 });
    }
    return hits.map((s) => spanInText(v, s, text.length));
  }
}

/** A form's window: WINDOW codes of its view from `from`. */
interface Window {
  readonly codes: Uint16Array;
  readonly from: number;
}

/** Whether one of the windows reads as the WINDOW codes from `from`. */
function holds(list: readonly Window[], codes: Uint16Array, from: number): boolean {
  for (const w of list) {
    let k = 0;
    while (k < WINDOW && codes[from + k] === w.codes[w.from + k]) k++;
    if (k === WINDOW) return true;
  }
  return false;
}

/** A span of the view as a span of the text, widened so that no backslash escape is cut in two. */
function spanInText(v: View, s: Span, length: number): Span {
  let start = v.at[s.start]!;
  let end = v.at[s.end - 1]! + 1;
  if (v.escaped[start]) start--;
  if (end < length && v.escaped[end]) end++;
  return { start, end };
}
