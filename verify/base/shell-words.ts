/**
 * POSIX shell word splitting, for the one job of reading back an example
 * line (contract §9: what a tool documents must run as printed). Quotes and
 * backslashes as sh reads them; anything that would make the shell do more
 * than split words (a variable, a glob, a pipe, a redirect, a command
 * substitution, a comment) is reported, since the pasted line would not be
 * the argv it claims to be. Written here, not taken from the kit: verify
 * holds the kit's quoting to its own reading.
 */

/** Characters that mean something to sh outside quotes, beyond splitting. */
const SPECIAL = new Set(["\n", "|", "&", ";", "<", ">", "(", ")", "$", "`", "*", "?", "[", "#", "~", "{", "}"]);
/** Inside double quotes, a backslash escapes only these. */
const DQ_ESCAPES = new Set(["$", "`", '"', "\\", "\n"]);

export type Split = { readonly words: string[] } | { readonly error: string };

export function shellWords(line: string): Split {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === " " || ch === "\t") {
      if (word !== null) words.push(word);
      word = null;
      continue;
    }
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) return { error: `an unclosed ' at column ${i + 1}` };
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
      continue;
    }
    if (ch === '"') {
      let text = "";
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        const c = line[j]!;
        if (c === "$" || c === "`")
          return { error: `a ${c} inside double quotes at column ${j + 1}: the shell would expand it` };
        if (c === "\\" && DQ_ESCAPES.has(line[j + 1] ?? "")) text += line[++j];
        else text += c;
      }
      if (j >= line.length) return { error: `an unclosed " at column ${i + 1}` };
      word = (word ?? "") + text;
      i = j;
      continue;
    }
    if (ch === "\\") {
      if (i + 1 >= line.length) return { error: "a trailing backslash" };
      word = (word ?? "") + line[++i];
      continue;
    }
    // `#` and `~` are special only at a word's start; `=` and the rest of a word are plain.
    if (SPECIAL.has(ch) && !((ch === "#" || ch === "~") && word !== null))
      return { error: `an unquoted ${ch} at column ${i + 1}: the shell would not pass it as it stands` };
    word = (word ?? "") + ch;
  }
  if (word !== null) words.push(word);
  return { words };
}
