/**
 * Escape 3: the harness's own secrets (AGENT_HARNESS_SECRET, the storage's
 * AGENT_ARTIFACT_SECRET_ACCESS_KEY) never leave whole. The steps run without
 * them and cannot mask them, so the harness redacts what it folds, stores,
 * delivers and renders. A site whose pages carry both secrets (titles and
 * prose) goes through `harness job execute` with the compiled binaries, a
 * real S3-compatible server and a real `harness receive`; then `harness
 * history render`. Not a 16-character slice of either secret, in any form,
 * is in the report, the delivered body, the receiver's store, the stored
 * objects, the run dir or the pages.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { binary, run } from "../helpers/bin.ts";
import { failingProxy, receiverProcess, type Proxy as FaultProxy } from "../helpers/harness.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { leakFolded } from "../helpers/leak.ts";

const HARNESS_SECRET = randomBytes(32).toString("hex");
const STORAGE_SECRET = randomBytes(30).toString("base64");
const SLICE = 16;
const leak = (...texts: string[]) =>
  Math.max(leakFolded(HARNESS_SECRET, ...texts), leakFolded(STORAGE_SECRET, ...texts));

let dir: string;
let s3: S3rver;
let s3Endpoint: string;
let proxy: FaultProxy;
let job: { code: number; stdout: string; stderr: string; json: any };
let received: { code: number; json: any; stderr: string };
let history: { code: number; stdout: string; stderr: string };
const storeOf = () => join(dir, "receiver", "receiver.sqlite");

function siteWithSecrets(site: string): void {
  mkdirSync(site, { recursive: true });
  const page = (title: string, body: string, href: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>Tools</h1><p>${body}</p><a href="${href}">more</a></body></html>`;
  writeFileSync(
    join(site, "index.html"),
    page(
      `Harbour ${HARNESS_SECRET}`,
      `Our garden spades are forged from one piece of steel, and the signing secret ${HARNESS_SECRET} sits in this paragraph by mistake, beside the storage key ${STORAGE_SECRET} and handles of ash that last a lifetime in any weather.`,
      "/b.html",
    ),
  );
  // A page named after the secret: its URL is in the plan's reasons and targets, and so in history.html.
  writeFileSync(join(site, `p-${HARNESS_SECRET}.html`), page("A page", "Spades.", "/"));
  writeFileSync(
    join(site, "b.html"),
    page(
      `Key ${STORAGE_SECRET.toUpperCase()}`,
      `${HARNESS_SECRET.slice(0, 30)}\n${HARNESS_SECRET.slice(30)}`,
      `/p-${HARNESS_SECRET}.html`,
    ),
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "harness-secrets-"));
  siteWithSecrets(join(dir, "site"));
  // s3rver checks the access key id, not the signature: the storage's secret here is the canary.
  s3 = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    allowMismatchedSignatures: true,
    directory: mkdtempSync(join(tmpdir(), "s3-")),
    configureBuckets: [{ name: "artifacts", configs: [] }],
  });
  s3Endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
  const receiver = await receiverProcess(["--max-reports", "1", "--run-dir", join(dir, "receiver")], {
    AGENT_HARNESS_SECRET: HARNESS_SECRET,
  });
  proxy = failingProxy(receiver.url, 0);
  writeFileSync(
    join(dir, "job.json"),
    JSON.stringify({
      id: "job-secrets-1",
      run_dir: "run",
      steps: [
        { argv: ["seo", "crawl", "--dir", "site", "--base-url", "https://harbour.example"] },
        { argv: ["seo", "extract"] },
        { argv: ["seo", "audit"] },
        { argv: ["seo", "page", "list"] },
        // Its meta description is copied from the page's prose: the plan carries what the step could not know to mask.
        { argv: ["seo", "plan"] },
      ],
      delivery: { url: `${proxy.url}/reports` },
    }),
  );
  const env = {
    AGENT_HARNESS_SECRET: HARNESS_SECRET,
    AGENT_ARTIFACT_ENDPOINT: s3Endpoint,
    AGENT_ARTIFACT_BUCKET: "artifacts",
    AGENT_ARTIFACT_ACCESS_KEY_ID: "S3RVER",
    AGENT_ARTIFACT_SECRET_ACCESS_KEY: STORAGE_SECRET,
  };
  const r = await run(binary("harness"), ["job", "execute", "--job", join(dir, "job.json"), "--json"], {
    env,
    cwd: dir,
    timeoutMs: 120_000,
  });
  job = { code: r.code, stdout: r.stdout, stderr: r.stderr, json: r.json };
  received = await receiver.done;
  history = await run(
    binary("harness"),
    ["history", "render", "--job", join(dir, "run"), "--run-dir", join(dir, "pages"), "--json"],
    {
      env,
      cwd: dir,
    },
  );
}, 180_000);

afterAll(async () => {
  proxy?.stop();
  await s3?.close();
}, SLOW_HOOK);

describe("escape 3: the harness's own secrets never leave whole", () => {
  test("the job ran and its pages' titles reached the report (the secrets had somewhere to go)", () => {
    expect([job.code, job.json.data.status]).toEqual([0, "succeeded"]);
    const titles = job.json.data.steps[3].data.items.map((p: { title: string }) => p.title);
    expect(titles).toEqual(["Harbour [REDACTED]", "Key [REDACTED]", "A page"]);
    expect(received.json.data.accepted).toHaveLength(1);
  });

  test("report.json and the job's answer (stdout, stderr) hold no slice of either", () => {
    expect(leak(readFileSync(join(dir, "run", "report.json"), "utf8"), job.stdout, job.stderr)).toBeLessThan(SLICE);
  });

  test("the delivered body, and the receiver's stored row, hold no slice of either", () => {
    expect(proxy.last).not.toBeNull();
    const db = new Database(storeOf(), { readonly: true });
    const rows = db.query("SELECT body FROM harness_events").all() as { body: string }[];
    db.close();
    expect(rows).toHaveLength(1);
    expect(leak(new TextDecoder().decode(proxy.last!.body), rows[0]!.body, received.stderr)).toBeLessThan(SLICE);
  });

  test("every artifact uploaded to storage, and every file of the run dir, holds no slice of either", async () => {
    const client = new Bun.S3Client({
      endpoint: s3Endpoint,
      bucket: "artifacts",
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
      region: "us-east-1",
    });
    const stored = job.json.data.artifacts.filter((a: { url: string | null }) => a.url);
    expect(stored.map((a: { name: string }) => a.name)).toEqual(["audit.json", "crawl.json", "extract.json"]);
    const objects = await Promise.all(
      stored.map((a: { name: string }) => client.file(`jobs/job-secrets-1/${a.name}`).text()),
    );
    const leaks = Object.fromEntries([
      ...stored.map((a: { name: string }, i: number) => [`stored ${a.name}`, leak(objects[i]!)]),
      ...readdirSync(join(dir, "run"))
        .filter((f) => !f.endsWith(".sqlite"))
        .map((f) => [`run dir ${f}`, leak(readFileSync(join(dir, "run", f), "utf8"))]),
    ]);
    expect(Object.entries(leaks).filter(([, n]) => n >= SLICE)).toEqual([]);
    for (const a of stored)
      expect(a.sha256).toBe(
        `sha256:${new Bun.CryptoHasher("sha256").update(readFileSync(join(dir, "run", a.name))).digest("hex")}`,
      );
  });

  test("history.html and timeline.html hold no slice of either", () => {
    expect(history.code).toBe(0);
    const pages = ["history.html", "timeline.html"].map((f) => readFileSync(join(dir, "pages", f), "utf8"));
    expect(pages[0]).toContain("job-secrets-1");
    expect(pages[0]).toContain("add-meta-description");
    expect(leak(...pages, history.stdout, history.stderr)).toBeLessThan(SLICE);
  });

  test("a job whose step is given the harness's secret is refused before any step runs", async () => {
    const path = join(dir, "leaky-job.json");
    writeFileSync(
      path,
      JSON.stringify({
        id: "leaky",
        run_dir: "leaky-run",
        steps: [{ argv: ["seo", "audit"], input: { note: HARNESS_SECRET } }],
      }),
    );
    const r = await run(binary("harness"), ["job", "execute", "--job", path, "--json"], {
      env: { AGENT_HARNESS_SECRET: HARNESS_SECRET },
      cwd: dir,
    });
    expect([r.json.error?.code, r.json.error?.detail?.step]).toEqual(["INVALID_INPUT", 0]);
    expect(leak(r.stdout, r.stderr)).toBeLessThan(SLICE);
  });
});
