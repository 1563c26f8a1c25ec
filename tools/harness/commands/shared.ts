/** What the harness's commands share: its own credentials, which no step is given. */
import type { EnvVar } from "agent-cli-kit";
import { STORAGE_ENV } from "agent-cli-kit/harness";

export const SECRET_ENV = "AGENT_HARNESS_SECRET";

export const SECRET: EnvVar = {
  name: SECRET_ENV,
  scope: "write",
  description: "The HMAC-SHA256 secret a report is signed with (and checked with, by the receiver).",
};

export const STORAGE: EnvVar[] = [
  {
    name: STORAGE_ENV.endpoint,
    scope: "config",
    description:
      "S3-compatible storage for bulky artifacts (Cloudflare R2 in production): its endpoint URL. Unset: artifacts stay in the run dir.",
  },
  {
    name: STORAGE_ENV.bucket,
    scope: "config",
    description: "The bucket artifacts are uploaded to, under jobs/<job id>/.",
  },
  { name: STORAGE_ENV.accessKeyId, scope: "write", description: "The storage's access key id." },
  { name: STORAGE_ENV.secretAccessKey, scope: "write", description: "The storage's secret access key." },
];

/** The harness's own variables: a step never sees them. */
export const OWN = new Set([SECRET_ENV, ...Object.values(STORAGE_ENV)]);

/** Those of them that are secrets (not the storage's endpoint or bucket): no step is ever handed one. */
export const OWN_SECRETS = [SECRET, ...STORAGE].filter((v) => v.scope !== "config").map((v) => v.name);

/** Beside a job's report.json: where it is delivered, so `report deliver` can send it again. */
export const DELIVERY_FILE = "delivery.json";
