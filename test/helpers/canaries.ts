/**
 * Canary secrets for the sweep, and the eight encodings each is injected in:
 * as it is; base64 at each of the three alignments (one of them a `Basic`
 * header's "api:" prefix); base64url; hex in lower and in upper case; a slice
 * of 25 characters; split by a line break; URL-encoded. Each canary holds a
 * `/` and a `+`, so that its URL-encoded and base64url forms differ from it.
 */
import { randomBytes } from "node:crypto";

const alnum = (n: number): string =>
  Array.from(randomBytes(n), (b) => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[b % 62]).join("");

export const canary = (tag: string): string => `${tag}${alnum(14)}/${alnum(12)}+${alnum(10)}`;

export interface Canaries {
  /** A secret by its name alone (the redactor knows it from the environment). */
  readonly generic: string;
  /** seo's declared LLM key. */
  readonly llm: string;
  /** The harness's signing secret, and its storage's secret key: no step holds them. */
  readonly harness: string;
  readonly storage: string;
}

export const makeCanaries = (): Canaries => ({
  generic: canary("gen"),
  llm: canary("sk-or-v1-"),
  harness: canary("hrn"),
  storage: canary("sto"),
});

/** The environment that holds every canary under a name that marks a secret. */
export const canaryEnv = (c: Canaries): Record<string, string> => ({
  SWEEP_CANARY_API_KEY: c.generic,
  OPENROUTER_API_KEY: c.llm,
  AGENT_HARNESS_SECRET: c.harness,
  AGENT_ARTIFACT_SECRET_ACCESS_KEY: c.storage,
});

const b64 = (s: string) => Buffer.from(s).toString("base64");

export const ENCODINGS: Readonly<Record<string, (s: string) => string>> = {
  raw: (s) => s,
  "base64, three alignments (one a Basic header)": (s) => `${b64(s)} Basic ${b64(`api:${s}`)} ${b64(`xy${s}`)}`,
  base64url: (s) => Buffer.from(`q${s}`).toString("base64url"),
  "hex, lower case": (s) => Buffer.from(s).toString("hex"),
  "hex, upper case": (s) => Buffer.from(s).toString("hex").toUpperCase(),
  "a slice of 25": (s) => s.slice(6, 31),
  "split by a line break": (s) => `${s.slice(0, 17)}\n${s.slice(17)}`,
  "URL-encoded": (s) => encodeURIComponent(s),
};

/** Two values that between them carry a secret in all eight encodings: four each, so a bounded flag still takes one. */
export function payloads(secret: string): [string, string] {
  const all = Object.values(ENCODINGS).map((e) => e(secret));
  return [`a ${all.slice(0, 4).join(" ")}`, `b ${all.slice(4).join(" ")}`];
}
