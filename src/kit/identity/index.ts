/** contract §10, identity and secrets: credentials from the environment, scoped per phase, one redactor over every emitted byte, and a person's act kept from agents' doors. */
export {
  APPROVER_KEY_ENV,
  assertRequiredEnv,
  CREDENTIAL_FLAG,
  credentialNames,
  envOf,
  expiresAtEnv,
  holdsWriteCredentials,
  REFRESH_URL_ENV,
  refreshTokenEnv,
  withheldFrom,
  type EnvScope,
  type EnvVar,
  type Lifetime,
} from "./env.ts";
export { createRedactor, ENV_REPLACEMENT, type Redactor } from "./redact.ts";
export type { Credential, Credentials } from "./credential.ts";
/** The live credentials (expiry, refresh, endpoints), loaded when a command runs: an answer that stops earlier never evaluates them. */
export const credentialsModule = () => import("./credential.ts");
export { DOOR_ENV, personOnly, type Door } from "./person.ts";
export { doorEnv } from "./doors.ts";
