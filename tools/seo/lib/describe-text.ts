/**
 * A meta description from a page's own main text: whole sentences, starting
 * at a sentence start, within the length the description-length rule
 * accepts. Sentence ends know abbreviations ("e.g.", "Dr."), initials,
 * version numbers and file names ("3.5", "struct.py": a stop inside a word is
 * not an end), and a stop followed by a lower-case word is not an end.
 */

/** The description-length rule's range (rules.ts). */
export const DESCRIPTION_MIN = 50;
export const DESCRIPTION_MAX = 160;
/** Less main-text prose than this and a page gets no description: there is nothing worth publishing. */
export const MIN_PROSE_WORDS = 12;
const MAX_CANDIDATES = 24;

const ABBREVIATIONS = new Set(
  (
    "e.g i.e etc vs cf al approx incl esp resp viz ca mr mrs ms dr prof sr jr st no nos fig figs eq eqs ch sec secs vol vols pp p ed eds " +
    "inc ltd co corp dept univ jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun min max"
  ).split(" "),
);
const CLOSERS = new Set([")", "]", '"', "'", "”", "’", "»"]);
const OPENERS = /[\p{Lu}\p{N}"'“‘«(¿¡[]/u;

/** Whether the word ending just before index `stop` (a ".") is an abbreviation or an initial, not a sentence's end. */
function abbreviated(text: string, stop: number): boolean {
  let s = stop;
  while (s > 0 && /[\p{L}.]/u.test(text[s - 1]!)) s--;
  const word = text.slice(s, stop).toLowerCase();
  if (word === "") return false;
  if (ABBREVIATIONS.has(word)) return true;
  // An initial ("J. Smith") or dotted letters ("U.S.", "e.g" written "e.g.").
  return /^\p{L}$/u.test(word) || /^(\p{L}\.)+\p{L}$/u.test(word);
}

/** Where each sentence of `text` starts (index 0 first); linear in the text's length. */
export function sentenceStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== "." && c !== "!" && c !== "?") continue;
    let j = i + 1;
    while (j < text.length && (text[j] === "." || text[j] === "!" || text[j] === "?" || CLOSERS.has(text[j]!))) j++;
    // A stop inside a word ("3.5", "struct.py") is no end: whitespace must follow.
    if (j >= text.length || !/\s/.test(text[j]!)) continue;
    let k = j;
    while (k < text.length && /\s/.test(text[k]!)) k++;
    if (k >= text.length || !OPENERS.test(text[k]!)) continue;
    if (c === "." && j === i + 1 && abbreviated(text, i)) continue;
    starts.push(k);
    i = k - 1;
  }
  return starts;
}

/** The sentences of `text`, each trimmed. */
export function sentences(text: string): string[] {
  const starts = sentenceStarts(text);
  return starts.map((s, n) => text.slice(s, starts[n + 1] ?? text.length).trim()).filter(Boolean);
}

const words = (s: string): number => s.split(/\s+/).filter(Boolean).length;
/**
 * A sentence worth opening a description with: it starts like one (a capital,
 * or anything at a paragraph's start; never a list number "5.") and says something.
 */
const opens = (s: string, first: boolean): boolean =>
  (first ? /^[\p{L}"'“‘«(¿¡]|^\p{N}+(?![.)]\s)/u : /^[\p{Lu}"'“‘«(¿¡]|^\p{N}+(?![.)]\s)/u).test(s) && words(s) >= 4;

export const proseWords = (paragraphs: readonly string[]): number => paragraphs.reduce((n, p) => n + words(p), 0);

/**
 * Descriptions the main text offers, best first: runs of whole sentences of
 * one paragraph, each starting at a sentence start and within the rule's
 * length; a page with no such run offers its first long sentence cut at a
 * word, marked with "…". Empty when the page has too little prose.
 */
export function descriptionCandidates(paragraphs: readonly string[]): string[] {
  if (proseWords(paragraphs) < MIN_PROSE_WORDS) return [];
  const out: string[] = [];
  let firstLong: string | null = null;
  for (const para of paragraphs) {
    const ss = sentences(para);
    for (let i = 0; i < ss.length && out.length < MAX_CANDIDATES; i++) {
      if (!opens(ss[i]!, i === 0)) continue;
      let run = "";
      const runs: string[] = [];
      for (let j = i; j < ss.length; j++) {
        const next = run ? `${run} ${ss[j]}` : ss[j]!;
        if (next.length > DESCRIPTION_MAX) break;
        run = next;
        if (run.length >= DESCRIPTION_MIN && /[.!?]["'”’)\]]*$/.test(run) && !out.includes(run)) runs.push(run);
      }
      // The longest run from a start says most; the shorter ones stay as alternatives (a duplicate elsewhere).
      out.push(...runs.reverse());
      if (run === "" && firstLong === null) firstLong = ss[i]!;
    }
    if (out.length >= MAX_CANDIDATES) break;
  }
  if (out.length === 0 && firstLong !== null) {
    const cut = firstLong.slice(0, DESCRIPTION_MAX - 8);
    out.push(`${cut.slice(0, cut.lastIndexOf(" "))}…`);
  }
  return out;
}

/** A meta description from the page's own words, or null when it has too little prose. */
export function describeFromText(paragraphs: readonly string[]): string | null {
  return descriptionCandidates(paragraphs)[0] ?? null;
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
      yield text.slice(p, r);
      return;
    }
    if (/\s/.test(text[r]!)) {
      yield text.slice(p, r + 1);
      p = r + 1;
    } else p = r; // every start in [p, r) fails the same way
  }
}
