/** How much of a secret a text gives away, in every form the redactor knows it by. */
import { encodingsOf } from "../../src/kit/identity/redact.ts";

/** The secret as it is, JSON-escaped, URL-encoded and base64 (padded, unpadded, URL-safe). */
export const formsOf = (secret: string): string[] => [
  ...new Set([secret, JSON.stringify(secret).slice(1, -1), ...encodingsOf(secret)]),
];

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
