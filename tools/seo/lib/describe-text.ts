/** A meta description from a page's own words, cut at whole sentences. */

/** A meta description from the page's own words: whole sentences up to ~155 characters. */
export function describeFromText(paragraphs: readonly string[]): string | null {
  const text = paragraphs.join(" ").trim();
  if (text.split(/\s+/).length < 8) return null;
  if (text.length <= 155) return text;
  let out = "";
  for (const s of sentencesOf(text)) {
    if ((out + s).trim().length > 155) break;
    out += s;
  }
  if (out.trim().length >= 50) return out.trim();
  const cut = text.slice(0, 152);
  return `${cut.slice(0, cut.lastIndexOf(" "))}…`;
}

const isStop = (c: string): boolean => c === "." || c === "!" || c === "?";

/**
 * The matches of /[^.!?]+[.!?]+(\s|$)/g, found in linear time: the regex
 * backtracks quadratically over a long run without sentence punctuation
 * (80 KB took seconds, 20 MB never finished).
 */
export function* sentencesOf(text: string): Generator<string> {
  let p = 0;
  while (p < text.length) {
    if (isStop(text[p]!)) {
      p++;
      continue;
    }
    let q = p;
    while (q < text.length && !isStop(text[q]!)) q++;
    if (q === text.length) return;
    let r = q;
    while (r < text.length && isStop(text[r]!)) r++;
    if (r === text.length) {
      yield text.slice(p);
      return;
    }
    if (/\s/.test(text[r]!)) {
      yield text.slice(p, r + 1);
      p = r + 1;
    } else p = r; // every start in [p, r) fails the same way
  }
}
