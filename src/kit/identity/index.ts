/** contract §10, identity and secrets: credentials from the environment, scoped per phase, and one redactor over every emitted byte. */
export { assertRequiredEnv, CREDENTIAL_FLAG, credentialNames, envOf, holdsWriteCredentials, withheldFrom, type EnvScope, type EnvVar } from "./env.ts";
export { createRedactor, ENV_REPLACEMENT, type Redactor } from "./redact.ts";
