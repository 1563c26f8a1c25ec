/**
 * How much of a secret a text gives away, in every form an echo may take:
 * worked out here, apart from the redactor, so that a form the redactor
 * forgets is still measured.
 */

/** The base64 characters that encode only the secret's bytes when it starts `shift` bytes into a group of three. */
function base64Within(secret: string, shift: number): string {
  const full = Buffer.concat([Buffer.alloc(shift), Buffer.from(secret)])
    .toString("base64")
    .replace(/=+$/, "");
  const last = ((shift + Buffer.byteLength(secret)) * 8) % 6 === 0 ? full.length : full.length - 1;
  return full.slice(shift === 0 ? 0 : shift + 1, last);
}

/** The secret as it is, JSON-escaped, URL-encoded, hex, and base64 (padded, unpadded, URL-safe, at each alignment). */
export const formsOf = (secret: string): string[] => {
  const b64 = Buffer.from(secret).toString("base64");
  const within = [0, 1, 2].map((shift) => base64Within(secret, shift));
  return [
    ...new Set([
      secret,
      JSON.stringify(secret).slice(1, -1),
      encodeURIComponent(secret),
      b64,
      b64.replace(/=+$/, ""),
      Buffer.from(secret).toString("base64url"),
      Buffer.from(secret).toString("hex"),
      ...within,
      ...within.map((f) => f.replace(/\+/g, "-").replace(/\//g, "_")),
    ]),
  ].filter((f) => f.length > 0);
};

/** The longest run of `form`'s characters that `text` holds. */
export function longestRun(text: string, form: string): number {
  let best = 0;
  for (let i = 0; i + best < form.length; i++) {
    if (!text.includes(form.slice(i, i + best + 1))) continue;
    let n = best + 1;
    while (i + n < form.length && text.includes(form.slice(i, i + n + 1))) n++;
    best = n;
  }
  return best;
}

/** The longest run of the secret, in any of its forms, that any of the texts holds. */
export const leakOf = (secret: string, ...texts: string[]): number =>
  Math.max(...formsOf(secret).flatMap((f) => texts.map((t) => longestRun(t, f))));

/**
 * An upstream's answer that echoes `form` so that a `cut`-character
 * truncation falls `offset` characters into it. The padding is a character
 * no form of a secret in these tests holds.
 */
export const echoing = (form: string, offset: number, cut: number): string =>
  `${".".repeat(cut - offset)}${form} was refused`;

/** Offsets 0 … form.length: the cut before the form, inside it at each character, and after it. */
export const offsetsOf = (form: string): number[] => Array.from({ length: form.length + 1 }, (_, i) => i);

/** A text as an echo may break a secret: case-folded, its whitespace and JSON's `\n`, `\t`, `\r` escapes taken out. */
export const folded = (text: string): string => text.replace(/\\[nrt]|\s+/g, "").toLowerCase();

/**
 * The longest run of the secret, in any form, that any text holds once
 * case-folded and unbroken: what an echo in upper case, hex or split by a
 * line break still gives away.
 */
export const leakFolded = (secret: string, ...texts: string[]): number =>
  Math.max(...formsOf(secret).flatMap((f) => texts.map((t) => longestRun(folded(t), folded(f)))));
