/**
 * End to end on 127.0.0.1, with the compiled binaries: `harness job execute`
 * over the example site's pipeline (crawl → extract → audit → score → plan →
 * gate review → apply) delivers one signed report to `harness receive`
 * through a receiver that answers 500 twice first; the bulky artifacts land
 * in a real S3-compatible server (after an upload that fails and is retried)
 * with the sha256 the report gives; and a replay, a bad signature, an old
 * timestamp and a body changed in flight are each refused with their reason.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signedHeaders } from "../../src/features/harness/sign.ts";
import { binary, root, run } from "../helpers/bin.ts";
import {
  failingProxy,
  receiverProcess,
  s3Server,
  S3_CREDENTIALS,
  type Proxy as FaultProxy,
} from "../helpers/harness.ts";
import { gateKeys, writePolicy } from "../helpers/mutation.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const SECRET = "harness-secret-0123456789abcdef";
const sha = (bytes: Uint8Array | string) => `sha256:${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}`;

let dir: string;
let s3: Awaited<ReturnType<typeof s3Server>>;
let s3Proxy: FaultProxy;
let receiverProxy: FaultProxy;
let job: { code: number; json: any; stderr: string };
let received: { code: number; json: any; stderr: string };
let storePath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "harness-e2e-"));
  cpSync(join(root, "examples", "site"), join(dir, "site"), { recursive: true });
  s3 = await s3Server("artifacts");
  // The first upload of crawl.json fails: the harness must try it again.
  s3Proxy = failingProxy(s3.endpoint, 1, (method, path) => method === "PUT" && path.endsWith("/crawl.json"));
  const receiverDir = join(dir, "receiver");
  storePath = join(receiverDir, "receiver.sqlite");
  const receiver = await receiverProcess(["--max-reports", "1", "--run-dir", receiverDir], {
    AGENT_HARNESS_SECRET: SECRET,
  });
  receiverProxy = failingProxy(receiver.url, 2);
  const keys = gateKeys();
  writeFileSync(
    join(dir, "job.json"),
    JSON.stringify({
      id: "job-e2e-1",
      run_dir: "run",
      steps: [
        { argv: ["seo", "crawl", "--dir", "site", "--base-url", "https://harbour.example"] },
        { argv: ["seo", "extract"] },
        { argv: ["seo", "audit"] },
        { argv: ["seo", "score"] },
        { argv: ["seo", "plan"] },
        { argv: ["gate", "review", "--plan", "{run_dir}"] },
        { argv: ["seo", "apply", "--plan", "{run_dir}"] },
      ],
      delivery: { url: `${receiverProxy.url}/reports` },
    }),
  );
  const env = {
    AGENT_HARNESS_SECRET: SECRET,
    AGENT_GATE_PRIVATE_KEY: keys.privateKey,
    AGENT_GATE_PUBLIC_KEY: keys.publicKey,
    AGENT_POLICY_FILE: writePolicy(dir),
    AGENT_ARTIFACT_ENDPOINT: s3Proxy.url,
    AGENT_ARTIFACT_BUCKET: "artifacts",
    AGENT_ARTIFACT_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
    AGENT_ARTIFACT_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
  };
  const r = await run(binary("harness"), ["job", "execute", "--job", join(dir, "job.json"), "--json"], {
    env,
    timeoutMs: 120_000,
  });
  job = { code: r.code, json: r.json, stderr: r.stderr };
  received = await receiver.done;
}, 180_000);

afterAll(async () => {
  s3Proxy?.stop();
  receiverProxy?.stop();
  await s3?.close();
}, SLOW_HOOK);

describe("harness job execute over the example site's pipeline", () => {
  test("every step succeeded, in one run dir, and the report says what to run next", () => {
    expect(job.code).toBe(0);
    const data = job.json.data;
    expect(data.steps.map((s: any) => [s.tool, s.command, s.exit, s.ok])).toEqual([
      ["seo", "crawl", 0, true],
      ["seo", "extract", 0, true],
      ["seo", "audit", 0, true],
      ["seo", "score", 0, true],
      ["seo", "plan", 0, true],
      ["gate", "review", 0, true],
      ["seo", "apply", 0, true],
    ]);
    expect([data.status, data.not_run, data.errors]).toEqual(["succeeded", 0, []]);
    expect(data.next.find((n: any) => n.step === 4).commands).toEqual([`gate review --plan ${join(dir, "run")}`]);
    expect(data.steps[6].data.status).toBe("applied");
    expect(readFileSync(join(dir, "site", "about.html"), "utf8")).toContain('<html lang="en">');
  });

  test("one signed report reached the receiver, after two 500s: stored once", () => {
    expect(job.json.data.delivered).toMatchObject({ attempts: 3, status: 200 });
    expect(receiverProxy.seen.map((s) => s.status)).toEqual([500, 500, 200]);
    expect(received.code).toBe(0);
    expect(received.json.data.accepted).toEqual([
      { job_id: "job-e2e-1", event_id: job.json.data.event_id, status: "succeeded" },
    ]);
    const db = new Database(storePath, { readonly: true });
    const rows = db.query("SELECT job_id, event_type, event_id, body FROM harness_events").all() as any[];
    db.close();
    expect(rows.map((r) => [r.job_id, r.event_type, r.event_id])).toEqual([
      ["job-e2e-1", "job.completed", job.json.data.event_id],
    ]);
    expect(JSON.parse(rows[0].body)).toEqual(JSON.parse(readFileSync(job.json.data.report, "utf8")));
  });

  test("the bulky artifacts are in the S3-compatible server with the sha256 the report gives; the failed upload was retried", async () => {
    const artifacts = job.json.data.artifacts;
    expect(artifacts.map((a: any) => [a.name, a.type, a.url !== null])).toEqual([
      ["audit.json", "report", true],
      ["crawl.json", "raw", true],
      ["extract.json", "raw", true],
      ["plan.json", "plan", false],
      ["score.json", "report", true],
    ]);
    for (const a of artifacts.filter((x: any) => x.url)) {
      expect(a.url).toBe(`${s3Proxy.url}/artifacts/jobs/job-e2e-1/${a.name}`);
      const stored = new Uint8Array(await s3.client.file(`jobs/job-e2e-1/${a.name}`).arrayBuffer());
      expect([sha(stored), stored.length]).toEqual([a.sha256, a.bytes]);
      expect(sha(readFileSync(join(dir, "run", a.name)))).toBe(a.sha256);
    }
    expect(
      s3Proxy.seen.filter((s) => s.method === "PUT" && s.path.endsWith("/crawl.json")).map((s) => s.status),
    ).toEqual([500, 200]);
  });
});

describe("the job's history", () => {
  test("history render --job: the job's steps, then every item of the plan it applied with its outcome", async () => {
    const r = await run(binary("harness"), [
      "history",
      "render",
      "--job",
      join(dir, "run"),
      "--run-dir",
      join(dir, "pages"),
      "--json",
    ]);
    expect(r.code).toBe(0);
    const html = readFileSync(r.json.data.history, "utf8");
    const plan = JSON.parse(readFileSync(join(dir, "run", "plan.json"), "utf8"));
    expect(html).toContain("<h1>History: job <code>job-e2e-1</code></h1>");
    expect(html.match(/<tr><td>\d+<\/td><td><code>/g)?.length).toBe(7);
    expect(html.match(/<li class="applied">/g)?.length).toBe(plan.items.length);
    expect(r.json.data.entries).toBe(plan.items.length);
  });
});

describe("the receiver refuses, each with its own reason", () => {
  test("a replay, a bad signature, an old timestamp and a body changed in flight; then a fresh report is accepted", async () => {
    const again = await receiverProcess(["--max-reports", "1", "--store", storePath], { AGENT_HARNESS_SECRET: SECRET });
    const post = (headers: Record<string, string>, body: Uint8Array | string) =>
      fetch(`${again.url}/reports`, { method: "POST", headers, body });
    const last = receiverProxy.last!;
    const answers: [number, string][] = [];
    const note = async (res: Response) => answers.push([res.status, ((await res.json()) as any).reason ?? "accepted"]);
    // The same POST, byte for byte, to a receiver restarted on the same store.
    await note(await post(last.headers, last.body));
    await note(await post({ ...last.headers, "x-harness-signature": `v1=${"0".repeat(64)}` }, last.body));
    const body = new TextDecoder().decode(last.body);
    await note(await post(signedHeaders(SECRET, body, "evt-old", Date.now() - 3_600_000), body));
    await note(await post(last.headers, body.replace('"succeeded"', '"failed"')));
    const fresh = JSON.stringify({ ...JSON.parse(body), event_id: "evt-fresh" });
    await note(await post(signedHeaders(SECRET, fresh, "evt-fresh", Date.now()), fresh));
    expect(answers).toEqual([
      [409, "replay"],
      [401, "bad-signature"],
      [401, "stale-timestamp"],
      [400, "body-changed"],
      [200, "accepted"],
    ]);
    const r = await again.done;
    expect(r.code).toBe(0);
    expect(r.json.data.refused.map((x: any) => x.reason)).toEqual([
      "replay",
      "bad-signature",
      "stale-timestamp",
      "body-changed",
    ]);
  }, 120_000);
});
