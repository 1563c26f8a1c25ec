/**
 * contract §10, injected identity's failure edges: a credential that expires
 * during a long job is refreshed through the platform, never stored; one
 * that is dead when the command starts (a slow boot that missed its window)
 * fails before any side effect, so the platform re-dispatches the job with
 * fresh credentials rather than retrying it.
 *
 * A refresh is `POST AGENT_CREDENTIAL_REFRESH_URL {credential, refresh_token}`
 * answering `{token, expires_at?, refresh_token?}`; the refresh token is
 * single-use, so each answer's replaces it. Every token the kit learns is
 * handed to the redactor before anything else sees it.
 */
import { KitError } from "../output/index.ts";
import { envOf, expiresAtEnv, REFRESH_URL_ENV, refreshTokenEnv, type EnvVar } from "./env.ts";
import { assertBound } from "./endpoint.ts";
import { jwtExpiry, parseTime } from "./expiry.ts";
import type { Redactor } from "./redact.ts";

/** Refreshed this long before expiry: a request that starts then still ends with a live token. */
export const REFRESH_MARGIN_MS = 30_000;

export interface Credential {
  /** The token now: refreshed first when it expires within the margin. */
  token(): Promise<string>;
  /**
   * A request to a service bound to this credential, with `Authorization:
   * Bearer <token>`. A 401 refreshes once and asks once more; a second 401
   * (or a 401 with no refresh path) is AUTH_FAILED.
   */
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
}

export interface CredentialParts {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => number;
  readonly redact: Redactor;
  readonly signal: AbortSignal;
}

const REDISPATCH =
  "the job needs re-dispatch with fresh credentials (retrying it as it is cannot succeed); nothing after this point ran";

const iso = (ms: number): string => new Date(ms).toISOString();

class Live implements Credential {
  private current: string;
  private expiresAt: number | null;
  private refreshToken: string | undefined;
  private refreshing: Promise<void> | null = null;
  refreshes = 0;

  constructor(
    private readonly v: EnvVar,
    private readonly p: CredentialParts,
  ) {
    this.current = p.env[v.name] ?? "";
    this.refreshToken = v.lifetime?.refresh ? p.env[refreshTokenEnv(v.name)] || undefined : undefined;
    this.expiresAt = this.expiryOf(
      this.current,
      v.lifetime?.expiry === "expires-at" ? p.env[expiresAtEnv(v.name)] : undefined,
    );
  }

  private expiryOf(token: string, given: string | number | undefined | null): number | null {
    if (this.v.lifetime?.expiry === "jwt") return jwtExpiry(token) ?? parseTime(given);
    const at = parseTime(given);
    if (given !== undefined && given !== null && given !== "" && at === null)
      throw new KitError("MISSING_ENV", `${expiresAtEnv(this.v.name)} is not a time (unix seconds or RFC 3339)`, {
        detail: { variable: expiresAtEnv(this.v.name) },
        hint: `the platform sets ${expiresAtEnv(this.v.name)} beside ${this.v.name}; re-dispatch the job`,
      });
    return at;
  }

  get refreshable(): boolean {
    return this.refreshToken !== undefined && Boolean(this.p.env[REFRESH_URL_ENV]);
  }

  /** contract §10: dead now, or dead before `until` with no way to refresh, is CREDENTIAL_EXPIRED before anything runs. */
  async checkAt(until: number): Promise<void> {
    if (this.expiresAt === null || this.expiresAt > until) return;
    if (this.refreshable && this.expiresAt - REFRESH_MARGIN_MS > this.p.now()) return; // refreshed when it nears expiry
    if (this.refreshable) return this.refresh();
    const dead = this.expiresAt <= this.p.now();
    throw new KitError(
      "CREDENTIAL_EXPIRED",
      `${this.v.name} ${dead ? "expired" : "expires"} at ${iso(this.expiresAt)}${dead ? "" : `, before this command's maximum duration ends (${iso(until)})`}, and no refresh path is given`,
      {
        hint: REDISPATCH,
        detail: {
          credential: this.v.name,
          expires_at: iso(this.expiresAt),
          needed_until: iso(until),
          refresh: this.v.lifetime?.refresh
            ? `set ${refreshTokenEnv(this.v.name)} and ${REFRESH_URL_ENV}`
            : "none declared",
        },
      },
    );
  }

  async token(): Promise<string> {
    if (this.expiresAt !== null && this.expiresAt - REFRESH_MARGIN_MS <= this.p.now()) {
      if (this.refreshable) await this.refresh();
      else if (this.expiresAt <= this.p.now()) await this.checkAt(this.p.now());
    }
    return this.current;
  }

  /** One refresh at a time: requests that find the token refused together share it. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.refreshOnce().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async refreshOnce(): Promise<void> {
    const url = this.p.env[REFRESH_URL_ENV]!;
    const spent = this.refreshToken!;
    this.refreshToken = undefined; // single-use: never sent twice, whatever the answer
    this.refreshes++;
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ credential: this.v.name, refresh_token: spent }),
        signal: this.p.signal,
      });
    } catch (e) {
      throw new KitError(
        "UPSTREAM_ERROR",
        `the credential refresh endpoint could not be reached: ${this.p.redact((e as Error).message).slice(0, 200)}`,
        { hint: REDISPATCH, detail: { credential: this.v.name } },
      );
    }
    const raw = await res.text();
    const text = this.p.redact(raw); // what an error may quote: redacted before it is cut
    if (!res.ok)
      throw new KitError(
        res.status >= 500 ? "UPSTREAM_ERROR" : "CREDENTIAL_EXPIRED",
        `refreshing ${this.v.name} was refused: ${res.status} ${text.slice(0, 200)}`,
        { hint: REDISPATCH, detail: { credential: this.v.name, status: res.status } },
      );
    let got: { token?: unknown; expires_at?: unknown; refresh_token?: unknown } = {};
    try {
      got = JSON.parse(raw) ?? {};
    } catch {}
    if (typeof got.token !== "string" || got.token === "")
      throw new KitError(
        "UPSTREAM_ERROR",
        `the refresh endpoint answered no token for ${this.v.name}: ${text.slice(0, 200)}`,
        { hint: REDISPATCH, detail: { credential: this.v.name } },
      );
    const next = typeof got.refresh_token === "string" && got.refresh_token !== "" ? got.refresh_token : undefined;
    this.p.redact.add(got.token);
    if (next) this.p.redact.add(next);
    this.current = got.token;
    this.refreshToken = next;
    const at = typeof got.expires_at === "string" || typeof got.expires_at === "number" ? got.expires_at : null;
    this.expiresAt = this.v.lifetime?.expiry === "jwt" ? (jwtExpiry(got.token) ?? parseTime(at)) : parseTime(at);
  }

  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    assertBound(this.v, this.p.env, url);
    const used = await this.token();
    const first = await this.send(url, init, used);
    if (first.status !== 401) return first;
    await first.body?.cancel();
    if (!this.refreshable && this.current === used) throw this.refused(url, "and no refresh path is given");
    // Once per failure: a request that raced another's refresh uses the token that refresh got.
    if (this.current === used) await this.refresh();
    const second = await this.send(url, init, this.current);
    if (second.status !== 401) return second;
    await second.body?.cancel();
    throw this.refused(url, "again after one refresh");
  }

  /** A connection that fails is a passing failure (NETWORK_ERROR, retryable), never INTERNAL. */
  private async send(url: string | URL, init: RequestInit, token: string): Promise<Response> {
    try {
      return await fetch(url, withBearer(init, token, this.p.signal));
    } catch (e) {
      if (this.p.signal.aborted || (e as Error).name === "AbortError" || (e as Error).name === "TimeoutError") throw e;
      const where = new URL(String(url));
      throw new KitError(
        "NETWORK_ERROR",
        `${where.origin} could not be reached: ${this.p.redact((e as Error).message).slice(0, 200)}`,
        { hint: "retry once the service is reachable", detail: { credential: this.v.name } },
      );
    }
  }

  private refused(url: string | URL, why: string): KitError {
    const where = new URL(String(url));
    return new KitError("AUTH_FAILED", `${where.origin}${where.pathname} refused ${this.v.name} (401) ${why}`, {
      hint: REDISPATCH,
      detail: { credential: this.v.name, status: 401, refreshes: this.refreshes },
    });
  }
}

function withBearer(init: RequestInit, token: string, signal: AbortSignal): RequestInit {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${token}`);
  return { ...init, headers, signal: init.signal ?? signal };
}

/** The credentials a command declares, live: checked at start, refreshed on demand. */
export class Credentials {
  private readonly live = new Map<string, Live>();

  constructor(
    private readonly declared: readonly EnvVar[],
    private readonly p: CredentialParts,
  ) {}

  static of(tool: { env?: readonly EnvVar[] }, command: { env?: readonly EnvVar[] }, p: CredentialParts): Credentials {
    return new Credentials(
      envOf(tool, command).filter((v) => v.scope !== "config"),
      p,
    );
  }

  /** Before the command runs: every credential with a lifetime must live until `maxDurationMs` from now, or be refreshable. */
  async check(maxDurationMs: number): Promise<void> {
    const until = this.p.now() + maxDurationMs;
    for (const v of this.declared) if (v.lifetime && this.p.env[v.name]) await this.get(v.name).checkAt(until);
  }

  get(name: string): Live {
    let c = this.live.get(name);
    if (c) return c;
    const v = this.declared.find((d) => d.name === name);
    if (!v)
      throw new KitError("INTERNAL", `${name} is not a credential this command declares`, {
        hint: "declare it in the command's or the tool's env, scope read or write",
      });
    if (!this.p.env[name])
      throw new KitError("MISSING_ENV", `${name} is not set`, {
        detail: { variable: name, scope: v.scope },
        hint: `set ${name} in the environment: ${v.description}`,
      });
    this.live.set(name, (c = new Live(v, this.p)));
    return c;
  }
}
