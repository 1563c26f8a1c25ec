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
const HEX = "0123456789abcdef";

// Written out, not TextEncoder, btoa and regular expressions: every tool computes these at start-up for each
// secret in its environment (an agent's usually holds several), where those cost milliseconds each.
function utf8(value: string): Uint8Array {
  const bytes = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0x7f) return new TextEncoder().encode(value);
    bytes[i] = c;
  }
  return bytes;
}

/** Base64 without its `=` padding, of `bytes` after `shift` zero bytes. */
function base64Unpadded(bytes: Uint8Array, shift = 0): string {
  const n = bytes.length + shift;
  const byte = (i: number): number => (i < shift ? 0 : bytes[i - shift]!);
  let out = "";
  for (let i = 0; i < n; i += 3) {
    const triple = (byte(i) << 16) | (i + 1 < n ? byte(i + 1) << 8 : 0) | (i + 2 < n ? byte(i + 2) : 0);
    out += B64[triple >> 18]! + B64[(triple >> 12) & 63]!;
    if (i + 1 < n) out += B64[(triple >> 6) & 63]!;
    if (i + 2 < n) out += B64[triple & 63]!;
  }
  return out;
}

const urlSafe = (b64: string): string => b64.replaceAll("+", "-").replaceAll("/", "_");

/**
 * The characters of the secret's base64 that do not depend on the bytes
 * around it, when it starts `shift` bytes into a group of three (as after
 * "api:", one byte in): the first `shift` + 1 characters mix in what came
 * before, and a last partial group mixes in what comes after.
 */
function base64Core(bytes: Uint8Array, shift: 0 | 1 | 2): string {
  const full = base64Unpadded(bytes, shift);
  const tailBits = ((bytes.length + shift) * 8) % 6; // bits of the last character that the next byte would change
  return full.slice(shift === 0 ? 0 : shift + 1, tailBits === 0 ? full.length : full.length - 1);
}

/** A lone surrogate (`\ud800` in a JSON string a service answered) has no URL-encoded form. */
function urlEncoded(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return "";
  }
}

/** The encoded forms of a secret: URL-encoded, JSON-escaped, hex, and base64 (standard and URL-safe, at each alignment). */
export function formsOf(value: string): string[] {
  const bytes = utf8(value);
  const bare = base64Unpadded(bytes);
  const whole = bare + "=".repeat((3 - (bytes.length % 3)) % 3);
  const cores = ([0, 1, 2] as const).map((shift) => base64Core(bytes, shift));
  let hex = "";
  for (const b of bytes) hex += HEX[b >> 4]! + HEX[b & 15]!;
  return [
    ...new Set([
      value,
      JSON.stringify(value).slice(1, -1),
      urlEncoded(value),
      whole,
      bare,
      urlSafe(bare),
      hex,
      ...cores,
      ...cores.map(urlSafe),
    ]),
  ].filter((f) => f.length > 0);
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

/**
 * How many characters of `form` the windows read, as they read a text (viewOf: whitespace and JSON's `\n`,
 * `\r`, `\t` escapes skipped): a form shorter than WINDOW that way is matched whole instead.
 */
export const readLength = (form: string): number => viewOf(form).length;

const FILTER_WORDS = 1 << 15; // 2^20 bits: a few thousand windows fill under 1 % of them

/** A half-open range of a text to replace. */
export interface Span {
  start: number;
  end: number;
}

/** The windows of every form of every secret it is given; `find` names the spans of a text that hold any. */
export class WindowIndex {
  private readonly windows = new Map<number, Uint16Array[]>();
  /** One bit per hash bucket: most positions of a text are ruled out without a map lookup. */
  private readonly filter = new Uint32Array(FILTER_WORDS);

  get size(): number {
    return this.windows.size;
  }

  add(value: string): void {
    // Read as a text is read, so a secret holding a backslash and an `n` is cut into the windows a text of it gives;
    // hashed as find hashes a text, rolling, so no window is ever made a string.
    const { codes, length } = viewOf(value);
    let h = 0;
    for (let i = 0; i < length; i++) {
      if (i >= WINDOW) h = (h - Math.imul(codes[i - WINDOW]!, B_TOP)) | 0;
      h = (Math.imul(h, B) + codes[i]!) | 0;
      if (i < WINDOW - 1) continue;
      const window = codes.subarray(i - WINDOW + 1, i + 1);
      this.filter[(h >>> 5) & (FILTER_WORDS - 1)]! |= 1 << (h & 31);
      const list = this.windows.get(h);
      if (!list) this.windows.set(h, [window]);
      else if (!list.some((w) => sameCodes(window, 0, w))) list.push(window);
    }
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
      if (!list.some((w) => sameCodes(v.codes, from, w))) continue;
      const last = hits.at(-1);
      if (last && last.end > from) last.end = i + 1;
      else hits.push({ start: from, end: i + 1 });
    }
    return hits.map((s) => spanInText(v, s, text.length));
  }
}

function sameCodes(codes: Uint16Array, from: number, w: Uint16Array): boolean {
  for (let k = 0; k < WINDOW; k++) if (codes[from + k] !== w[k]) return false;
  return true;
}

/** A span of the view as a span of the text, widened so that no backslash escape is cut in two. */
function spanInText(v: View, s: Span, length: number): Span {
  let start = v.at[s.start]!;
  let end = v.at[s.end - 1]! + 1;
  if (v.escaped[start]) start--;
  if (end < length && v.escaped[end]) end++;
  return { start, end };
}
