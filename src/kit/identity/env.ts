/**
 * contract §10: credentials come only from the environment, each declared
 * with the phase that may hold it. A read never holds a write credential:
 * only `apply` (and a declared tier-2 write, such as the gate's signing) does.
 */
import { KitError } from "../output/index.ts";

/** Where a variable's value may be used: contract §10 scope split. */
export type EnvScope = "read" | "write" | "config";

export interface EnvVar {
  readonly name: string;
  /** `read`/`write`: a credential of that phase (always redacted); `config`: plain settings. */
  readonly scope: EnvScope;
  readonly required?: boolean;
  readonly description: string;
  /** A credential that expires (contract §10, refresh / long jobs): how the kit learns when, and whether it may refresh it. */
  readonly lifetime?: Lifetime;
  /**
   * A credential's endpoint: the config variable naming the base URL it is
   * issued for. `ctx.credential(name).fetch` sends it to URLs under that base
   * only, so no input can point it elsewhere.
   */
  readonly endpoint?: string;
}

/**
 * `expiry`: `expires-at` reads NAME_EXPIRES_AT (unix seconds or RFC 3339);
 * `jwt` reads the token's own `exp` claim. `refresh`: the platform may give
 * NAME_REFRESH_TOKEN (single-use) and AGENT_CREDENTIAL_REFRESH_URL, and the
 * kit refreshes before expiry and once on a 401 (identity/credential.ts).
 */
export interface Lifetime {
  readonly expiry: "expires-at" | "jwt";
  readonly refresh?: boolean;
}

/** Where the platform answers a refresh: one endpoint for the whole job. */
export const REFRESH_URL_ENV = "AGENT_CREDENTIAL_REFRESH_URL";
export const expiresAtEnv = (name: string): string => `${name}_EXPIRES_AT`;
export const refreshTokenEnv = (name: string): string => `${name}_REFRESH_TOKEN`;

/** A credential with a lifetime brings the variables the platform sets beside it: its expiry, its refresh token (same scope), the refresh endpoint. */
function withCompanions(vars: readonly EnvVar[]): EnvVar[] {
  const out = new Map<string, EnvVar>();
  for (const v of vars) {
    if (!out.has(v.name)) out.set(v.name, v);
    const life = v.lifetime;
    if (!life) continue;
    const more: EnvVar[] = [];
    if (life.expiry === "expires-at")
      more.push({
        name: expiresAtEnv(v.name),
        scope: "config",
        description: `When ${v.name} expires: unix seconds or RFC 3339, set by the platform beside it.`,
      });
    if (life.refresh) {
      more.push({
        name: refreshTokenEnv(v.name),
        scope: v.scope,
        description: `A single-use token that refreshes ${v.name} at ${REFRESH_URL_ENV}.`,
      });
      more.push({
        name: REFRESH_URL_ENV,
        scope: "config",
        description:
          "The platform's credential refresh endpoint: POST {credential, refresh_token} answers {token, expires_at, refresh_token}.",
      });
    }
    for (const m of more) if (!out.has(m.name)) out.set(m.name, m);
  }
  return [...out.values()];
}

type Declares = { readonly env?: readonly EnvVar[] };
type Phase = { readonly verb: string; readonly tier: 1 | 2; readonly rw: "read" | "write" };

/** MCP seed: credential fields are prohibited in inputs; here, in flags. */
export const CREDENTIAL_FLAG =
  /(^|-)(token|tokens|password|passwd|secret|secrets|api-?key|apikey|credentials?|auth|authorization|bearer|cookie|private-key|access-key|session-key)($|-)/;

/** contract §10: `plan` and write CRUD verbs only write plans; `apply` and declared tier-2 writes act. */
export const holdsWriteCredentials = (c: Phase): boolean => c.verb === "apply" || (c.tier === 2 && c.rw === "write");

/** The environment a command may read: the tool's variables and its own. */
export const envOf = (tool: Declares, command: Declares): readonly EnvVar[] =>
  withCompanions([...(tool.env ?? []), ...(command.env ?? [])]);

/** Every credential the tool declares anywhere: what the redactor masks. */
export const credentialNames = (tool: Declares & { readonly commands: readonly Declares[] }): string[] =>
  withCompanions([...(tool.env ?? []), ...tool.commands.flatMap((c) => c.env ?? [])])
    .filter((v) => v.scope !== "config")
    .map((v) => v.name);

/** The write credentials present that this command's phase may not hold: what its process must run without. */
export const withheldFrom = (
  tool: Declares,
  command: Declares & Phase,
  env: Readonly<Record<string, string | undefined>>,
): string[] =>
  holdsWriteCredentials(command)
    ? []
    : envOf(tool, command)
        .filter((v) => v.scope === "write" && env[v.name] !== undefined)
        .map((v) => v.name);

/** A required variable of this phase that is absent is a precondition failure naming it. */
export function assertRequiredEnv(
  tool: Declares,
  command: Declares & Phase,
  env: Readonly<Record<string, string | undefined>>,
): void {
  for (const v of envOf(tool, command)) {
    if (!v.required || (v.scope === "write" && !holdsWriteCredentials(command))) continue;
    if (!env[v.name])
      throw new KitError("MISSING_ENV", `${v.name} is not set`, {
        hint: `set ${v.name} in the environment: ${v.description}`,
        detail: { variable: v.name, scope: v.scope },
      });
  }
}

/** A person's Ed25519 private key: only `gate approve`, run by that person, reads it; no agent's door passes it on. */
export const APPROVER_KEY_ENV = "AGENT_APPROVER_KEY";
