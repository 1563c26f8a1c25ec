/** contract §10: when a credential dies — an explicit expiry time, or a JWT's own `exp`. */

/** A time as unix seconds, milliseconds or RFC 3339, in ms; null when it is none of them. */
export function parseTime(text: string | number | undefined | null): number | null {
  if (text === undefined || text === null || text === "") return null;
  if (typeof text === "number" || /^\d+(\.\d+)?$/.test(text)) {
    const n = Number(text);
    return n > 1e12 ? n : n * 1000; // a 13-digit number is already milliseconds
  }
  const t = Date.parse(text);
  return Number.isNaN(t) ? null : t;
}

/** The `exp` claim of a JWT, in ms; null when the token is not a JWT with one. */
export function jwtExpiry(token: string): number | null {
  const part = token.split(".")[1];
  if (!part) return null;
  try {
    const claims = JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: unknown };
    return typeof claims.exp === "number" ? claims.exp * 1000 : null;
  } catch {
    return null;
  }
}
