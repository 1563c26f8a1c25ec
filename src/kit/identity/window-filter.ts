/**
 * A first look in native code before the windows' rolling hash
 * (secret-forms.ts). Every window of WINDOW (16) characters of a form holds
 * one of the form's pieces of PIECE (8) characters cut at multiples of 8 (a
 * window starts at most 7 characters before one), so a text that holds none
 * of the pieces, read as the windows read it (whitespace and JSON's `\n`,
 * `\r`, `\t` escapes skipped, ASCII letters folded), holds no window. Reading
 * it so is a regular expression and toLowerCase, and each piece one
 * `includes`: a tool with keys in its environment reads what it prints
 * without running the hash in the interpreter, and builds the hash's index
 * only for a text that may hold a window.
 *
 * Exact for ASCII forms: toLowerCase folds more than ASCII, which the windows
 * do not, but never changes an ASCII character or moves it away from its
 * neighbours. A form with other characters makes every text a candidate.
 */
import { WINDOW } from "./secret-forms.ts";

const PIECE = 8;
/** A backslash and the character it escapes are one unit (kept, unless JSON's n, r or t); whitespace as viewOf skips it. */
const SKIPPED = /(\\[^nrt])|\\[nrt]|[\t-\r \u00a0\u2028\u2029]/g;
const ASCII = /^[\x00-\x7f]*$/;

/** A text as the windows read it, for an ASCII form's pieces to be looked for in. */
const asRead = (text: string): string => text.replace(SKIPPED, "$1").toLowerCase();

export class WindowFilter {
  private readonly pieces = new Set<string>();
  private exact = true;

  /**
   * Takes a form's pieces. Returns how many characters the windows read in
   * it, or -1 for a form that is not ASCII (index it at once: every text is
   * now a candidate).
   */
  take(form: string): number {
    if (!ASCII.test(form)) {
      this.exact = false;
      return -1;
    }
    const read = asRead(form);
    if (read.length < WINDOW) return read.length;
    for (let at = 0; at + PIECE <= read.length; at += PIECE) this.pieces.add(read.slice(at, at + PIECE));
    return read.length;
  }

  /** False only when the text holds no window of any form taken. */
  mayHold(text: string): boolean {
    if (!this.exact) return true;
    if (this.pieces.size === 0 || text.length < WINDOW) return false;
    const read = asRead(text);
    for (const piece of this.pieces) if (read.includes(piece)) return true;
    return false;
  }
}
