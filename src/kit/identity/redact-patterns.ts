/**
 * Credential-shaped strings, masked even when no variable names them: each
 * keeps a short prefix (so support output can still correlate a key) and
 * ends in `_REDACTED`. A pattern names the span it masks, never rewrites the
 * text itself: the redactor merges every span it found before replacing any,
 * so one mask never lands inside another.
 */
import type { Span } from "./secret-forms.ts";

/** Keeps up to eight characters, never more than half the secret. */
export const mask = (secret: string): string =>
  `${secret.slice(0, Math.min(8, Math.floor(secret.length / 2)))}_REDACTED`;

// The value classes exclude quotes, backslashes and whitespace: JSON stays valid.
const V = `[^\\s"'\\\\&,;<>]`;
const AWS_PREFIXES = ["AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA"];
const KEY_WORDS = ["key", "secret", "token", "passw", "pwd"];
const LITERALS = new Set(["null", "true", "false"]);

/** Whether the text holds any of the words: a loop, not `some`, whose first call every start-up would compile. */
export function holdsAny(text: string, words: readonly string[]): boolean {
  for (const w of words) if (text.includes(w)) return true;
  return false;
}

interface Pattern {
  /** A cheap test every match must pass (on the text, and on it lower-cased): an expression never run is never compiled. */
  may: (text: string, lower: string) => boolean;
  re: RegExp;
  /** The groups before the one masked (0: the whole match is masked). */
  before: number;
}

const PATTERNS: readonly Pattern[] = [
  // AWS access key ids.
  {
    may: (t) => holdsAny(t, AWS_PREFIXES),
    re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b/g,
    before: 0,
  },
  // OpenAI/OpenRouter/Anthropic style keys.
  { may: (t) => t.includes("sk-"), re: /\bsk-[A-Za-z0-9_-]{16,}/g, before: 0 },
  // GitHub tokens.
  {
    may: (t) => t.includes("gh") || t.includes("github_pat_"),
    re: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
    before: 0,
  },
  // Slack tokens.
  { may: (t) => t.includes("xox"), re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, before: 0 },
  // Host-agent keys.
  { may: (t) => t.includes("emk_") || t.includes("evt_"), re: /\b(?:emk|evt)_[A-Za-z0-9]{16,}/g, before: 0 },
  // Authorization headers.
  { may: (t) => t.includes("Bearer"), re: /\b(Bearer)(\s+)([A-Za-z0-9._~+/=-]{8,})/g, before: 2 },
  // Presigned-URL signatures and similar query credentials.
  {
    may: (t) => t.includes("=") && (t.includes("?") || t.includes("&")),
    re: new RegExp(
      `([?&](?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|X-Goog-Signature|X-Goog-Credential|Signature|sig|token|access_token|api_key|apikey|key)=)(${V}+)`,
      "gi",
    ),
    before: 1,
  },
  // Passwords in URLs: scheme://user:password@host
  {
    may: (t) => t.includes("://") && t.includes("@"),
    re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@"'\\]+:)([^\s@/"'\\]+)@/gi,
    before: 1,
  },
  // key=value and "key": "value" pairs.
  {
    may: (_t, lower) => holdsAny(lower, KEY_WORDS),
    re: new RegExp(
      `\\b((?:api[_-]?key|apikey|secret|client[_-]?secret|token|access[_-]?token|refresh[_-]?token|auth[_-]?token|password|passwd|pwd)["']?\\s*[=:]\\s*["']?)(${V}{4,})`,
      "gi",
    ),
    before: 1,
  },
];

/** Above this many characters the cheap tests cost more than one pass of each expression. */
const LARGE_TEXT = 64 * 1024;

/** The spans of a text that hold something credential-shaped, each found on the text as it is. */
export function shapedSpans(text: string): Span[] {
  const large = text.length > LARGE_TEXT;
  const lower = large ? "" : text.toLowerCase();
  const spans: Span[] = [];
  for (const { may, re, before } of PATTERNS) {
    if (!large && !may(text, lower)) continue;
    for (const m of text.matchAll(re)) {
      const value = m[before + 1] ?? m[0];
      if (before > 0 && LITERALS.has(value)) continue;
      let start = m.index;
      for (let g = 1; g <= before; g++) start += m[g]!.length;
      spans.push({ start, end: start + value.length });
    }
  }
  return spans;
}
