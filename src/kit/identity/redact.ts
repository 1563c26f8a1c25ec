/**
 * The one redactor every emitted byte passes through (SPEC, from the
 * host-agent contract): stdout, stderr and the artifacts the kit writes.
 *
 * - The values of secret-looking environment variables, and of every
 *   variable a tool declares as a credential, are replaced whole.
 * - Credential-shaped strings keep a short prefix (so support output can
 *   still correlate a key) and end in `_REDACTED`.
 *
 * Replacements never contain a quote or a backslash, so redacting the text
 * of a JSON document leaves it valid JSON.
 */

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
  return (
    SECRET_LAST_WORDS.has(upper.slice(upper.lastIndexOf("_") + 1)) || SECRET_PARTS.some((part) => upper.includes(part))
  );
}

/** Keeps up to eight characters, never more than half the secret. */
const mask = (secret: string): string => `${secret.slice(0, Math.min(8, Math.floor(secret.length / 2)))}_REDACTED`;

// The value classes exclude quotes, backslashes and whitespace: JSON stays valid.
const V = `[^\\s"'\\\\&,;<>]`;
const AWS_PREFIXES = ["AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA"];
const KEY_WORDS = ["key", "secret", "token", "passw", "pwd"];

/**
 * Each pattern has a cheap test that every match must pass (on the text, and
 * on the text lower-cased): output that cannot hold a match skips the
 * expression, and an expression never run is never compiled.
 */
const PATTERNS: readonly {
  may: (text: string, lower: string) => boolean;
  re: RegExp;
  keep: (m: string, ...g: string[]) => string;
}[] = [
  // AWS access key ids.
  {
    may: (t) => AWS_PREFIXES.some((p) => t.includes(p)),
    re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b/g,
    keep: (m) => mask(m),
  },
  // OpenAI/OpenRouter/Anthropic style keys.
  { may: (t) => t.includes("sk-"), re: /\bsk-[A-Za-z0-9_-]{16,}/g, keep: (m) => mask(m) },
  // GitHub tokens.
  {
    may: (t) => t.includes("gh") || t.includes("github_pat_"),
    re: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
    keep: (m) => mask(m),
  },
  // Slack tokens.
  { may: (t) => t.includes("xox"), re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, keep: (m) => mask(m) },
  // Host-agent keys.
  { may: (t) => t.includes("emk_") || t.includes("evt_"), re: /\b(?:emk|evt)_[A-Za-z0-9]{16,}/g, keep: (m) => mask(m) },
  // Authorization headers.
  {
    may: (t) => t.includes("Bearer"),
    re: /\b(Bearer)(\s+)([A-Za-z0-9._~+/=-]{8,})/g,
    keep: (_m, scheme, sp, token) => `${scheme}${sp}${mask(token!)}`,
  },
  // Presigned-URL signatures and similar query credentials.
  {
    may: (t) => t.includes("=") && (t.includes("?") || t.includes("&")),
    re: new RegExp(
      `([?&](?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|X-Goog-Signature|X-Goog-Credential|Signature|sig|token|access_token|api_key|apikey|key)=)(${V}+)`,
      "gi",
    ),
    keep: (_m, name, value) => `${name}${mask(value!)}`,
  },
  // Passwords in URLs: scheme://user:password@host
  {
    may: (t) => t.includes("://") && t.includes("@"),
    re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@"'\\]+:)([^\s@/"'\\]+)@/gi,
    keep: (_m, head, pw) => `${head}${mask(pw!)}@`,
  },
  // key=value and "key": "value" pairs.
  {
    may: (_t, lower) => KEY_WORDS.some((w) => lower.includes(w)),
    re: new RegExp(
      `\\b((?:api[_-]?key|apikey|secret|client[_-]?secret|token|access[_-]?token|refresh[_-]?token|auth[_-]?token|password|passwd|pwd)["']?\\s*[=:]\\s*["']?)(${V}{4,})`,
      "gi",
    ),
    keep: (_m, head, value) =>
      value === "null" || value === "true" || value === "false" ? `${head}${value}` : `${head}${mask(value!)}`,
  },
];

/** The encoded forms a secret is echoed back in: URL-encoded, base64 (standard and URL-safe, as in a Basic auth header). */
export function encodingsOf(value: string): string[] {
  // btoa over the UTF-8 bytes: no Buffer, whose first use costs a start-up.
  const base64 = btoa(Array.from(new TextEncoder().encode(value), (b) => String.fromCharCode(b)).join(""));
  const forms = [
    encodeURIComponent(value),
    base64,
    base64.replace(/=+$/, ""),
    base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
  ];
  return [...new Set(forms)].filter((f) => f !== value);
}

interface Candidate {
  readonly name: string;
  readonly form: string;
}

/** Above this many characters, a text is scanned only for the values of names that mark a secret. */
const LARGE_TEXT = 64 * 1024;

export interface Redactor {
  (text: string): string;
  /** The exact values replaced whole; for tests and the verifier's canaries. */
  readonly secrets: readonly string[];
  /**
   * A secret that arrived after start-up (a refreshed token, a secret a
   * service issued): from now on it is masked like the environment's own.
   */
  add(value: string): void;
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
  // Every value long enough to be a secret, as it is and inside a JSON string. Whose name marks
  // it a secret is asked only of a value the text holds: most output holds none, and the
  // question costs more than finding the value.
  const candidates: Candidate[] = [];
  for (const name in env) {
    const value = env[name];
    if (!value || value.length < MIN_SECRET_LENGTH) continue;
    candidates.push({ name, form: value });
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value) candidates.push({ name, form: escaped });
  }
  // The encoded forms an upstream or a proxy echoes a secret back in: only for names that mark
  // one, and only once there is output to redact.
  let encoded = false;
  const addEncodings = () => {
    encoded = true;
    for (const c of [...candidates])
      if (isSecret(c.name) && c.form === env[c.name])
        for (const form of encodingsOf(c.form)) candidates.push({ name: c.name, form });
  };
  const isSecret = (name: string): boolean => declared.has(name) || looksSecretEnvName(name);
  // Longest first, so a secret that contains another is replaced whole.
  const longestFirst = (forms: string[]): string[] => [...new Set(forms)].sort((a, b) => b.length - a.length);

  const redact = ((text: string): string => {
    if (!encoded && text) addEncodings();
    let out = text;
    // On a large text (an artifact) a scan costs more than the question, so the question comes first.
    const held =
      text.length > LARGE_TEXT
        ? (c: Candidate) => isSecret(c.name) && text.includes(c.form)
        : (c: Candidate) => text.includes(c.form) && isSecret(c.name);
    const present = candidates.filter(held).map((c) => c.form);
    for (const s of longestFirst(present)) if (out.includes(s)) out = out.split(s).join(ENV_REPLACEMENT);
    // A large text holds most of the cheap tests' words anyway, and one pass of an expression costs less than eight of them.
    const large = out.length > LARGE_TEXT;
    const lower = large ? "" : out.toLowerCase();
    for (const { may, re, keep } of PATTERNS)
      if (large || may(out, lower)) out = out.replace(re, keep as (m: string, ...g: string[]) => string);
    return out;
  }) as Redactor;
  let issued = 0;
  redact.add = (value: string): void => {
    if (!value || value.length < MIN_SECRET_LENGTH) return;
    const name = `\0issued-${issued++}`; // no environment variable has this name
    declared.add(name);
    const escaped = JSON.stringify(value).slice(1, -1);
    const forms = [value, ...(escaped === value ? [] : [escaped]), ...encodingsOf(value)];
    for (const form of forms) candidates.push({ name, form });
  };
  Object.defineProperty(redact, "secrets", {
    get: () => (encoded || addEncodings(), longestFirst(candidates.filter((c) => isSecret(c.name)).map((c) => c.form))),
  });
  return redact;
}
