/**
 * No caller chooses where a credential goes: a credential declares the
 * config variable naming the base URL it is issued for (`EnvVar.endpoint`),
 * and the kit sends it under that base only. A URL an input built, pointing
 * anywhere else, gets no credential: the request is refused before it is sent.
 */
import { KitError } from "../output/index.ts";
import type { EnvVar } from "./env.ts";

function originOf(url: string | URL): string {
  try {
    return new URL(String(url)).origin;
  } catch {
    return "a URL that does not parse";
  }
}

/** Whether `url` lies under `base`: the same origin, and the base's path as a whole-segment prefix. */
export function isUnder(url: string, base: string): boolean {
  let u: URL;
  let b: URL;
  try {
    u = new URL(url);
    b = new URL(base);
  } catch {
    return false;
  }
  const prefix = b.pathname.endsWith("/") ? b.pathname : `${b.pathname}/`;
  return u.origin === b.origin && (u.pathname === b.pathname || u.pathname.startsWith(prefix));
}

/** POLICY_DENIED unless `url` lies under the base URL the credential's endpoint variable names. */
export function assertBound(v: EnvVar, env: Readonly<Record<string, string | undefined>>, url: string | URL): void {
  const base = v.endpoint ? env[v.endpoint] : undefined;
  if (base && isUnder(String(url), base)) return;
  throw new KitError(
    "POLICY_DENIED",
    v.endpoint
      ? `${v.name} is sent only under ${v.endpoint}${base ? ` (${originOf(base)})` : ", which is not set"}, not to ${originOf(url)}`
      : `${v.name} declares no endpoint, so it is sent nowhere`,
    {
      detail: { credential: v.name, ...(v.endpoint ? { endpoint: v.endpoint } : {}) },
      hint: v.endpoint
        ? `a credential goes only to the endpoint ${v.endpoint} names; set it in the environment`
        : "declare the credential's endpoint: the config variable naming the base URL it is issued for",
    },
  );
}
