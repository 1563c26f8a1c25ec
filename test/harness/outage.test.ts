/**
 * Nothing is lost, on 127.0.0.1 with the compiled binaries, a real
 * S3-compatible server and the real receiver, each behind a proxy that can be
 * switched down: storage down for a whole job still delivers a report (its
 * artifacts listed as unstored, with path and sha256); a report whose
 * delivery failed is kept and `harness report deliver` sends it later, stored
 * once; a job run again is the same event; Retry-After is honoured.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, root, run } from "../helpers/bin.ts";
import { receiverProcess, s3Server, S3_CREDENTIALS, storedEvents, switchProxy } from "../helpers/harness.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const SECRET = "outage-secret-0123456789abcdef";
const sha = (bytes: Uint8Array | string) => `sha256:${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}`;

let dir: string;
let s3: Awaited<ReturnType<typeof s3Server>>;
let storageDown = false;
let receiverDown: { status: number; headers?: Record<string, string> } | null = null;
let s3Proxy: ReturnType<typeof switchProxy>;
let receiverProxy: ReturnType<typeof switchProxy>;
let receiver: Awaited<ReturnType<typeof receiverProcess>>;
let store: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "harness-outage-"));
  cpSync(join(root, "examples", "site"), join(dir, "site"), { recursive: true });
  s3 = await s3Server("artifacts");
  s3Proxy = switchProxy(s3.endpoint, () => (storageDown ? { status: 503 } : null));
  store = join(dir, "receiver.sqlite");
  receiver = await receiverProcess(["--for", "600", "--store", store], { AGENT_HARNESS_SECRET: SECRET });
  receiverProxy = switchProxy(receiver.url, () => receiverDown);
}, SLOW_HOOK);
afterAll(async () => {
  receiver?.stop();
  s3Proxy?.stop();
  receiverProxy?.stop();
  await s3?.close();
}, SLOW_HOOK);

const env = () => ({
  AGENT_HARNESS_SECRET: SECRET,
  AGENT_ARTIFACT_ENDPOINT: s3Proxy.url,
  AGENT_ARTIFACT_BUCKET: "artifacts",
  AGENT_ARTIFACT_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
  AGENT_ARTIFACT_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
});

/** A crawl and an extract of the example site, delivered through the receiver's proxy. */
function job(id: string): string {
  const path = join(dir, `${id}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      id,
      run_dir: `run-${id}`,
      steps: [
        { argv: ["seo", "crawl", "--dir", "site", "--base-url", "https://harbour.example"] },
        { argv: ["seo", "extract"] },
      ],
      delivery: { url: `${receiverProxy.url}/reports` },
    }),
  );
  return path;
}
const execute = (id: string) =>
  run(binary("harness"), ["job", "execute", "--job", job(id), "--json"], { env: env(), timeoutMs: 60_000 });
const stored = (id: string) => storedEvents(store).filter((e) => e.job_id === id);

describe("storage down", () => {
  test("for the whole job: the report is delivered, its bulky artifacts listed as unstored with their path and sha256", async () => {
    storageDown = true;
    const r = await execute("job-storage-down");
    storageDown = false;
    expect(r.code).toBe(0);
    const data = r.json.data;
    expect([data.status, data.steps.map((s: any) => s.ok), data.delivered.status]).toEqual([
      "partial",
      [true, true],
      200,
    ]);
    expect(data.artifacts.map((a: any) => [a.name, a.location, a.url])).toEqual([
      ["crawl.json", "unstored", null],
      ["extract.json", "unstored", null],
    ]);
    for (const a of data.artifacts) {
      expect(a.path).toBe(join(dir, "run-job-storage-down", a.name));
      expect(sha(readFileSync(a.path))).toBe(a.sha256);
      expect(a.problem).toContain("artifact storage refused");
    }
    expect(s3Proxy.seen.filter((s) => s.method === "PUT").map((s) => s.status)).toEqual([503, 503, 503, 503, 503, 503]);
    const events = stored("job-storage-down");
    expect(events.map((e) => [e.event_id, e.body.status, e.body.artifacts.map((a: any) => a.location)])).toEqual([
      [data.event_id, "partial", ["unstored", "unstored"]],
    ]);
  }, 120_000);

  test("storage and receiver down: the report is kept; once they are back, report deliver stores it once, and a second delivery is a 409", async () => {
    storageDown = true;
    receiverDown = { status: 503 };
    const r = await execute("job-all-down");
    storageDown = false;
    receiverDown = null;
    expect([r.code, r.json.error.code]).toEqual([4, "UPSTREAM_ERROR"]);
    expect(r.json.error.message).toContain("503 (text/html of 41 bytes, not shown)");
    expect(r.json.error.hint).toContain("harness report deliver");
    expect(stored("job-all-down")).toEqual([]);
    const kept = JSON.parse(readFileSync(join(dir, "run-job-all-down", "report.json"), "utf8"));
    expect([kept.status, kept.artifacts.map((a: any) => a.location)]).toEqual(["partial", ["unstored", "unstored"]]);
    const again = await run(
      binary("harness"),
      ["report", "deliver", "--report", join(dir, "run-job-all-down"), "--json"],
      { env: { AGENT_HARNESS_SECRET: SECRET } },
    );
    expect([
      again.code,
      again.json.data.event_id,
      again.json.data.delivered.status,
      again.json.data.delivered.url,
    ]).toEqual([0, kept.event_id, 200, `${receiverProxy.url}/reports`]);
    const twice = await run(
      binary("harness"),
      ["report", "deliver", "--report", join(dir, "run-job-all-down", "report.json"), "--json"],
      { env: { AGENT_HARNESS_SECRET: SECRET } },
    );
    expect([twice.code, twice.json.error.code, twice.json.error.detail]).toEqual([
      3,
      "CONFLICT",
      { status: 409, attempts: 1 },
    ]);
    const events = stored("job-all-down");
    expect(events.map((e) => e.event_id)).toEqual([kept.event_id]);
    expect(events[0]!.body).toEqual(kept);
  }, 120_000);
});

describe("a job run again", () => {
  test("after a failed delivery, is the same event: the receiver stores one, not two", async () => {
    receiverDown = { status: 500 };
    const first = await execute("job-rerun");
    receiverDown = null;
    expect([first.code, first.json.error.code]).toEqual([4, "UPSTREAM_ERROR"]);
    const second = await execute("job-rerun");
    expect([second.code, second.json.data.delivered.status]).toEqual([0, 200]);
    const firstReport = JSON.parse(readFileSync(join(dir, "run-job-rerun", "report.json"), "utf8"));
    expect(firstReport.event_id).toBe(second.json.data.event_id);
    // A third run finds the event stored: a replay, refused, never a second row.
    const third = await execute("job-rerun");
    expect([third.code, third.json.error.code]).toEqual([3, "CONFLICT"]);
    expect(stored("job-rerun").map((e) => e.event_id)).toEqual([second.json.data.event_id]);
  }, 120_000);
});

describe("Retry-After", () => {
  test("a 429 with Retry-After: 3: the next attempt arrives at least 3 s later, and the report is stored once", async () => {
    let first = true;
    const proxy = switchProxy(receiver.url, () =>
      first ? ((first = false), { status: 429, headers: { "retry-after": "3" } }) : null,
    );
    try {
      const path = job("job-retry-after");
      writeFileSync(path, readFileSync(path, "utf8").replace(receiverProxy.url, proxy.url));
      const r = await run(binary("harness"), ["job", "execute", "--job", path, "--json"], {
        env: env(),
        timeoutMs: 60_000,
      });
      expect([r.code, r.json.data.delivered.attempts, r.json.data.delivered.status]).toEqual([0, 2, 200]);
      expect(proxy.arrivals.map((a) => a.status)).toEqual([429, 200]);
      expect(proxy.arrivals[1]!.at - proxy.arrivals[0]!.at).toBeGreaterThanOrEqual(3000);
      expect(stored("job-retry-after").length).toBe(1);
    } finally {
      proxy.stop();
    }
  }, 120_000);
});
