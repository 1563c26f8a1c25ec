/**
 * Markup no seo action writes, whatever it is called: a first, textual check
 * of what an item inserts, before the page is judged as a browser builds it
 * (tree-judge.ts). An attribute name begins after whitespace, a slash or a
 * quote (`"onerror=`, `'/onfocus=` are handlers to a browser), so no
 * whitespace is needed before one here.
 */
import type { Edit } from "./edits.ts";

/** Not part of an attribute name (an attribute name starts after one of these, or at the start). */
const START = "(?<![a-z0-9_:.-])";

const FORBIDDEN: readonly [RegExp, string][] = [
  [
    /<\s*\/?\s*(script|style|iframe|frame|frameset|object|embed|applet|base|form|svg|math|template|noscript)\b/i,
    "a <$1> element",
  ],
  [new RegExp(`${START}on[a-z]+\\s*=`, "i"), "an event-handler attribute"],
  [new RegExp(`${START}(style|srcdoc|formaction|http-equiv)\\s*=`, "i"), "a $1 attribute"],
  [/(javascript|vbscript|livescript)\s*:/i, "a $1: URL"],
  [/data\s*:\s*text\/html/i, "a data:text/html URL"],
];

/** The inserted text with character references decoded and the characters browsers skip inside a URL scheme removed. */
const decoded = (s: string): string =>
  s
    .replace(/&#x([0-9a-f]+);?/gi, (_m, h) => String.fromCodePoint(Number.parseInt(h, 16) % 0x110000))
    .replace(/&#(\d+);?/g, (_m, d) => String.fromCodePoint(Number(d) % 0x110000))
    .replace(/&(colon|tab|newline);/gi, (_m, n: string) => ({ colon: ":", tab: "\t", newline: "\n" })[n.toLowerCase()]!)
    .replace(/(?<=[a-z])[\t\n\r]+(?=[a-z:])/gi, "");

/** Each edit that writes forbidden markup, and what it writes. */
export function forbidden(edits: readonly Edit[]): string[] {
  const out: string[] = [];
  for (const [i, e] of edits.entries())
    for (const [re, what] of FORBIDDEN) {
      const m = re.exec(decoded(e.insert));
      if (m)
        out.push(
          `edit ${i + 1} writes ${what.replace("$1", m[1]?.toLowerCase() ?? "")}, which no seo action may write`,
        );
    }
  return out;
}
