/**
 * Word counting at parsing speed: what /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*\/gu
 * counts (a run of letters and digits, joined across an apostrophe or a
 * hyphen), in one pass over the char codes, with ASCII decided inline and
 * other characters' class looked up once each. The regex was a third of a
 * crawl's time.
 */
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
/** For each BMP code unit: 0 not yet known, 1 a letter or digit, 2 not. */
const bmp = new Uint8Array(65536);

function wordCodePoint(cp: number): boolean {
  if (cp < 128) return (cp >= 48 && cp <= 57) || ((cp | 32) >= 97 && (cp | 32) <= 122);
  if (cp < 65536) {
    let known = bmp[cp]!;
    if (known === 0) bmp[cp] = known = LETTER_OR_DIGIT.test(String.fromCharCode(cp)) ? 1 : 2;
    return known === 1;
  }
  return LETTER_OR_DIGIT.test(String.fromCodePoint(cp));
}

/** The code point at `i` if it is a letter or digit: its length in code units (1 or 2), else 0. */
function wordAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) return wordCodePoint(cp) ? 2 : 0;
  }
  return wordCodePoint(c) ? 1 : 0;
}

/** ASCII letters and digits, by char code. */
const ASCII_WORD = new Uint8Array(128).map((_, c) =>
  (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122) ? 1 : 0,
);

export function countWords(text: string): number {
  let n = 0;
  let inWord = false;
  const length = text.length;
  for (let i = 0; i < length; ) {
    const code = text.charCodeAt(i);
    // The common case inline: ASCII, no call.
    if (code < 128 && code !== 39 && code !== 45) {
      if (ASCII_WORD[code] === 1) {
        if (!inWord) n++;
        inWord = true;
      } else inWord = false;
      i++;
      continue;
    }
    const w = wordAt(text, i);
    if (w > 0) {
      if (!inWord) n++;
      inWord = true;
      i += w;
      continue;
    }
    const c = text.charCodeAt(i);
    // An apostrophe or hyphen between two letters joins them into one word.
    if (!(inWord && (c === 39 || c === 0x2019 || c === 45) && i + 1 < text.length && wordAt(text, i + 1) > 0))
      inWord = false;
    i++;
  }
  return n;
}
