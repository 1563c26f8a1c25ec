/** contract §10, identity and secrets: credentials from the environment, scoped per phase, and one redactor over every emitted byte. */
export {
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
export { Credentials, type Credential } from "./credential.ts";
