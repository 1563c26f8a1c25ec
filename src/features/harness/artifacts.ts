/**
 * contract §11: the harness, not the tools, routes a run dir's artifacts by
 * type. Bulky raw output and full reports go to S3-compatible storage
 * (Cloudflare R2 in production) when it is configured; the report references
 * every artifact by URL (or its path in the run dir) and sha256.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { KitError } from "../../kit/output/index.ts";
import { sha256, writeAtomic } from "../../kit/pipeline/index.ts";

export type ArtifactType = "raw" | "report" | "plan";

/** By file name; anything else in the run dir (a ledger, a temp file) is not an artifact of the job. */
export const ARTIFACT_TYPES: Readonly<Record<string, ArtifactType>> = {
  "crawl.json": "raw",
  "extract.json": "raw",
  "audit.json": "report",
  "score.json": "report",
  "synthesize.json": "report",
  "plan.json": "plan",
};
/** The types that leave the machine: the bulky ones. */
const UPLOADED: ReadonlySet<ArtifactType> = new Set(["raw", "report"]);

export interface ArtifactRef {
  name: string;
  type: ArtifactType;
  bytes: number;
  sha256: string;
  /** Where it is stored: the object's URL, or null when it stays in the run dir. */
  url: string | null;
  /** Its path in the run dir, where it stays whatever the storage does. */
  path: string;
  /** storage: uploaded (url); run-dir: kept there by type or for want of storage; unstored: bound for storage, which refused it. */
  location: "storage" | "run-dir" | "unstored";
  /** Why it is unstored; null otherwise. */
  problem: string | null;
}

export const STORAGE_ENV = {
  endpoint: "AGENT_ARTIFACT_ENDPOINT",
  bucket: "AGENT_ARTIFACT_BUCKET",
  accessKeyId: "AGENT_ARTIFACT_ACCESS_KEY_ID",
  secretAccessKey: "AGENT_ARTIFACT_SECRET_ACCESS_KEY",
} as const;

const ATTEMPTS = 3;
const BACKOFF_MS = [200, 600];

type Env = Readonly<Record<string, string | undefined>>;

export interface Storage {
  readonly client: Bun.S3Client;
  readonly endpoint: string;
  readonly bucket: string;
}

/** The storage the environment configures, or null; half a configuration is an error naming what is missing (checked before any step runs). */
export function storageOf(env: Env): Storage | null {
  const values = Object.fromEntries(Object.entries(STORAGE_ENV).map(([k, name]) => [k, env[name]])) as Record<
    keyof typeof STORAGE_ENV,
    string | undefined
  >;
  const missing = Object.entries(STORAGE_ENV)
    .filter(([k]) => !values[k as keyof typeof STORAGE_ENV])
    .map(([, name]) => name);
  if (missing.length === Object.keys(STORAGE_ENV).length) return null;
  if (missing.length > 0)
    throw new KitError("MISSING_ENV", `artifact storage is half configured: ${missing.join(", ")} unset`, {
      hint: `set ${missing.join(", ")}, or unset every AGENT_ARTIFACT_* variable to keep artifacts in the run dir`,
    });
  const endpoint = values.endpoint!.replace(/\/+$/, "");
  const client = new Bun.S3Client({
    endpoint,
    bucket: values.bucket!,
    accessKeyId: values.accessKeyId!,
    secretAccessKey: values.secretAccessKey!,
    region: "auto",
  });
  return { client, endpoint, bucket: values.bucket! };
}

async function upload(client: Bun.S3Client, key: string, bytes: Uint8Array, signal: AbortSignal): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.write(key, bytes, { type: "application/json" });
      return;
    } catch (e) {
      if (attempt >= ATTEMPTS || signal.aborted)
        throw new KitError(
          "UPSTREAM_ERROR",
          `artifact storage refused ${key} ${attempt} time(s): ${(e as Error).message}`,
          { hint: "check AGENT_ARTIFACT_ENDPOINT and the bucket; the report and artifacts are kept in the run dir" },
        );
      await Bun.sleep(BACKOFF_MS[attempt - 1] ?? BACKOFF_MS.at(-1)!);
    }
  }
}

/**
 * An artifact as it may leave: the steps that wrote it ran without the
 * harness's own secrets and could not mask them, so the harness does, in the
 * run dir too, once every step has run. A file so changed no longer matches
 * its checksum: the gate refuses such a plan, and a later stage over the run
 * dir asks for its stage to be run again (INVALID_ARTIFACT).
 */
function redactedFile(path: string, redact: (text: string) => string): Uint8Array {
  const raw = readFileSync(path);
  const text = new TextDecoder().decode(raw);
  const masked = redact(text);
  if (masked === text) return raw;
  const bytes = new TextEncoder().encode(masked);
  writeAtomic(path, masked, statSync(path).mode & 0o777);
  return bytes;
}

/**
 * Every artifact of the run dir, in name order: the bulky ones uploaded under
 * `jobs/<job id>/` when there is storage. A refused upload never loses the
 * report: the artifact is listed as unstored, with its path and sha256.
 */
export async function routeArtifacts(
  runDir: string,
  jobId: string,
  storage: Storage | null,
  signal: AbortSignal,
  redact: (text: string) => string,
): Promise<ArtifactRef[]> {
  const all = existsSync(runDir) ? readdirSync(runDir).sort() : [];
  // A stage's side files (the pages, findings and referrers its artifact names by sha256, and the index of
  // extract's pages) are redacted in place too.
  for (const name of all)
    if (name.endsWith(".ndjson") || name.endsWith(".index.json")) redactedFile(join(runDir, name), redact);
  const names = all.filter((n) => Object.hasOwn(ARTIFACT_TYPES, n));
  const refs: ArtifactRef[] = [];
  for (const name of names) {
    const path = join(runDir, name);
    const bytes = redactedFile(path, redact);
    const type = ARTIFACT_TYPES[name]!;
    const ref: ArtifactRef = {
      name,
      type,
      bytes: bytes.length,
      sha256: sha256(bytes),
      url: null,
      path,
      location: "run-dir",
      problem: null,
    };
    if (storage && UPLOADED.has(type)) {
      const key = `jobs/${jobId}/${name}`;
      try {
        await upload(storage.client, key, bytes, signal);
        Object.assign(ref, { url: `${storage.endpoint}/${storage.bucket}/${key}`, location: "storage" });
      } catch (e) {
        Object.assign(ref, { location: "unstored", problem: (e as Error).message.slice(0, 300) });
      }
    }
    refs.push(ref);
  }
  return refs;
}
