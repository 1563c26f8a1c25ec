/**
 * The one redactor every emitted byte passes through (SPEC, from the
 * host-agent contract): stdout, stderr and the artifacts the kit writes.
 *
 * - The values of secret-looking environment variables, and of every
 *   variable a tool declares as a credential, are replaced whole, in every
 *   form they are echoed back in (secret-forms.ts): any slice of 16 or more
 *   characters of the value, its base64 at any alignment, its hex, its
 *   URL-encoded and JSON-escaped forms, case-folded, broken by whitespace.
 * - Credential-shaped strings keep a short prefix and end in `_REDACTED`
 *   (redact-patterns.ts).
 *
 * Every span to mask is found on the text as given, the spans are merged,
 * and only then replaced: one mask never lands inside another. Replacements
 * never contain a quote or a backslash, and a span never cuts a backslash
 * escape in two, so redacting the text of a JSON document leaves it valid.
 */
import { holdsAny, mask, shapedSpans } from "./redact-patterns.ts";
import { formsOf, type Span, WINDOW, WindowIndex } from "./secret-forms.ts";
import { WindowFilter } from "./window-filter.ts";

/** Names whose values are secrets: a last word `KEY`, `TOKEN`, `SECRET`, …, or `PASSWORD`, `API_KEY`, … anywhere. */
const SECRET_LAST_WORDS = new Set([
  "KEY",
  "TOKEN",
  "SECRET",
  "SECRETS",
  "PASSWORD",
  "PASSWD",
  "PASS",
  "PAT",
  "CREDENTIAL",
  "CREDENTIALS",
  "AUTH",
  "COOKIE",
  "SIGNATURE",
  "DSN",
]);
const SECRET_PARTS = ["PASSWORD", "PASSWD", "SECRET", "TOKEN", "APIKEY", "API_KEY", "PRIVATE_KEY", "ACCESS_KEY"];

/** Shorter values collide with ordinary words; no real credential is this short. */
const MIN_SECRET_LENGTH = 8;

export const ENV_REPLACEMENT = "[REDACTED]";

// Set and substring tests, not one big regular expression: every tool runs this over the whole environment at start-up.
export function looksSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  // A public key is published: masking its slices would mask every key that shares its algorithm's header.
  if (upper.endsWith("PUBLIC_KEY") || upper.endsWith("PUBKEY")) return false;
  return SECRET_LAST_WORDS.has(upper.slice(upper.lastIndexOf("_") + 1)) || holdsAny(upper, SECRET_PARTS);
}

/** The encoded forms a secret is echoed back in, beside the value itself. */
export function encodingsOf(value: string): string[] {
  return formsOf(value).filter((f) => f !== value);
}

export interface Redactor {
  (text: string): string;
  /** The exact values replaced whole, and their whole encoded forms; for tests and the verifier's canaries. */
  readonly secrets: readonly string[];
  /**
   * A secret that arrived after start-up (a refreshed token, a secret a
   * service issued): from now on it is masked like the environment's own.
   */
  add(value: string): void;
  /** Whether a text holds a secret this redactor knows, in any form (not merely something credential-shaped). */
  holds(text: string): boolean;
  /**
   * A text built into the binary (the describe document, help, SKILL.md): no value from the environment was
   * there when it was built, so only the credential-shaped patterns are masked, and the secrets' forms are
   * never computed for it (a 54 KB document read that way doubled the start-up of a tool with a key in its
   * environment).
   */
  builtIn(text: string): string;
}

/**
 * What the redactor knows: the windows of long secrets' forms, and the whole forms of short ones. A long
 * ASCII form's windows are indexed only once a text may hold one (window-filter.ts): most outputs hold none.
 */
class Known {
  private readonly windows = new WindowIndex();
  private readonly filter = new WindowFilter();
  /** Long forms not indexed yet. */
  private readonly pending: string[] = [];
  readonly short: string[] = [];
  readonly forms = new Set<string>();

  add(value: string): void {
    if (!value || value.length < MIN_SECRET_LENGTH) return;
    let short = false;
    for (const form of formsOf(value)) {
      if (this.forms.has(form)) continue;
      this.forms.add(form);
      const read = this.filter.take(form);
      if (read >= WINDOW) this.pending.push(form);
      else if (read === -1 && this.windows.add(form)) continue;
      else {
        this.short.push(form);
        short = true;
      }
    }
    if (short) this.short.sort((a, b) => b.length - a.length);
  }

  spans(text: string): Span[] {
    const out = this.filter.mayHold(text) ? this.indexed().find(text) : [];
    for (const form of this.short)
      for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + form.length))
        out.push({ start: at, end: at + form.length });
    return out;
  }

  private indexed(): WindowIndex {
    for (const form of this.pending.splice(0)) this.windows.add(form);
    return this.windows;
  }
}

interface Masked extends Span {
  whole: boolean;
}

/** Merges overlapping spans and replaces each once: a known secret's span whole, a shaped one keeping its prefix. */
function replaceSpans(text: string, known: Span[], shaped: Span[]): string {
  if (known.length === 0 && shaped.length === 0) return text;
  const all: Masked[] = [
    ...known.map((s) => ({ ...s, whole: true })),
    ...shaped.map((s) => ({ ...s, whole: false })),
  ].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Masked[] = [];
  for (const s of all) {
    const last = merged.at(-1);
    if (last && s.start < last.end) {
      last.end = Math.max(last.end, s.end);
      last.whole ||= s.whole;
    } else merged.push({ ...s });
  }
  let out = "";
  let from = 0;
  for (const s of merged) {
    out += text.slice(from, s.start) + (s.whole ? ENV_REPLACEMENT : mask(text.slice(s.start, s.end)));
    from = s.end;
  }
  return out + text.slice(from);
}

/**
 * @example
 * const redact = createRedactor({ OPENROUTER_API_KEY: "sk-or-v1-abcdef0123456789" }, []);
 * redact("key sk-or-v1-abcdef0123456789") // "key [REDACTED]"
 */
export function createRedactor(
  env: Readonly<Record<string, string | undefined>>,
  credentialNames: readonly string[],
): Redactor {
  const declared = new Set(credentialNames);
  const known = new Known();
  // The forms are computed once, on the first output: a tool that emits nothing pays nothing.
  let ready = false;
  const prepare = () => {
    ready = true;
    for (const name in env) if (declared.has(name) || looksSecretEnvName(name)) known.add(env[name] ?? "");
  };
  const redact = ((text: string): string => {
    if (!text) return text;
    if (!ready) prepare();
    return replaceSpans(text, known.spans(text), shapedSpans(text));
  }) as Redactor;
  redact.add = (value: string): void => {
    if (!ready) prepare();
    known.add(value);
  };
  redact.holds = (text: string): boolean => {
    if (!text) return false;
    if (!ready) prepare();
    return known.spans(text).length > 0;
  };
  redact.builtIn = (text: string): string => (text ? replaceSpans(text, [], shapedSpans(text)) : text);
  Object.defineProperty(redact, "secrets", {
    get: () => (ready || prepare(), [...known.forms].sort((a, b) => b.length - a.length)),
  });
  return redact;
}
