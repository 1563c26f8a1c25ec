/**
 * contract §9: an example is printed as one line a POSIX shell splits back
 * into exactly its argv, so it runs when pasted. A word of plain characters
 * stays bare; any other is single-quoted, a quote inside written '\''.
 */
const BARE = /^[A-Za-z0-9@%+=:,./_-]+$/;

export const shellWord = (word: string): string => (BARE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** `brain search --query 'sharpening spades'`: the words, each quoted only if it must be. */
export const shellLine = (words: readonly string[]): string => words.map(shellWord).join(" ");
