/**
 * Tools that lie: envelopes with wrong types, negative and huge numbers,
 * foreign schema ids and broken shapes. In-process, the harness's result
 * satisfies its own schema for any mix of them (a seeded property test);
 * through the compiled `job execute` → `receive`, no run is INTERNAL and
 * every stored report is valid against harness.job.execute@1.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileTool } from "../../src/kit/compile/index.ts";
import { envelopeOf } from "../../src/kit/harness/envelope.ts";
import { foldJob, type StepRun } from "../../src/kit/harness/fold.ts";
import { roundUsd } from "../../src/kit/output/envelope.ts";
import harness from "../../tools/harness/tool.ts";
import { baseEnv } from "../helpers/bin.ts";
import { misbehavingFleet, receiverProcess, storedEvents } from "../helpers/harness.ts";

const SECRET = "fuzz-secret-0123456789abcdef";
const CRAWL = { source: { kind: "dir", location: "/s" }, start_url: "https://h.example/", pages: 1, by_status: { "200": 1 }, redirected: 0, skipped: {}, robots_txt: false, dry_run: false, artifact: "/r/crawl.json" };
const ok = () => ({ ok: true, contract_version: 0, tool: "seo", command: "crawl", data: structuredClone(CRAWL), error: null, meta: { schema: "seo.crawl@1", cost_usd: 0.01, llm_tokens: 5, outcome: null, next: ["seo extract"] } });
const failed = () => ({ ok: false, contract_version: 0, tool: "seo", command: "audit", data: null, error: { code: "UPSTREAM_ERROR", message: "down", retryable: true }, meta: { schema: "seo.audit@1", cost_usd: 0.02, llm_tokens: 0, outcome: null } });

const meta = (e: any, key: string, value: unknown) => (typeof e.meta === "object" && e.meta !== null ? ((e.meta[key] = value), e) : e);

/** Each mutation, and whether it breaks the envelope (the step must then fail with the path named). */
const MUTATIONS: [string, (e: any) => unknown, boolean][] = [
  ["cost as a string", (e) => meta(e, "cost_usd", "1e9"), true],
  ["a negative cost", (e) => meta(e, "cost_usd", -4.88), true],
  ["a huge cost", (e) => meta(e, "cost_usd", 1e308), true],
  ["a cost of null", (e) => meta(e, "cost_usd", null), true],
  ["a fine cost", (e) => meta(e, "cost_usd", 0.123456789), false],
  ["tokens as a word", (e) => meta(e, "llm_tokens", "lots"), true],
  ["negative tokens", (e) => meta(e, "llm_tokens", -100), true],
  ["fractional tokens", (e) => meta(e, "llm_tokens", 1.5), true],
  ["huge tokens", (e) => meta(e, "llm_tokens", 2 ** 60), true],
  ["a foreign schema", (e) => meta(e, "schema", "brain.note.list@1"), true],
  ["a schema that is a number", (e) => meta(e, "schema", 42), true],
  ["another tool's name", (e) => ((e.tool = "brain"), e), true],
  ["ok as a string", (e) => ((e.ok = "true"), e), true],
  ["meta missing", (e) => (delete e.meta, e), true],
  ["next not a list", (e) => meta(e, "next", "seo extract"), true],
  ["an error beside ok", (e) => ((e.error = { code: "X", message: "m" }), e), true],
  ["data on a failure", (e) => (e.ok ? e : ((e.data = { a: 1 }), e)), true],
  ["an error without a code", (e) => (e.ok ? e : ((e.error = { message: "m" }), e)), true],
  ["a number, not an envelope", () => 42, true],
  ["a list, not an envelope", () => [], true],
];

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random envelope: ok or failed, with 0 to 2 mutations; whether it should be a successful step. */
function envelope(rnd: () => number): { value: unknown; succeeds: boolean } {
  const good = rnd() < 0.6;
  let value: unknown = good ? ok() : failed();
  let broken = false;
  for (let n = Math.floor(rnd() * 3); n > 0; n--) {
    const [, mutate, breaks] = MUTATIONS[Math.floor(rnd() * MUTATIONS.length)]!;
    if (typeof value !== "object" || value === null || Array.isArray(value)) break;
    const before = JSON.stringify(value);
    value = mutate(value);
    if (JSON.stringify(value) !== before) broken ||= breaks;
  }
  return { value, succeeds: good && !broken };
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
const reportSchema = compileTool(harness).describe.commands.find((c) => c.name === "job execute")!.output_schema;
const validReport = ajv.compile(reportSchema);

describe("the harness's result satisfies its own schema, whatever the steps print", () => {
  test("2,000 random step envelopes, folded 20 to a job: every report is valid, sums are over valid numbers only", () => {
    const rnd = random(20261204);
    for (let job = 0; job < 100; job++) {
      const runs: StepRun[] = [];
      const expected: boolean[] = [];
      for (let i = 0; i < 20; i++) {
        const { value, succeeds } = envelope(rnd);
        const seen = envelopeOf(JSON.stringify(value), "seo");
        runs.push({ index: i, argv: ["seo", "x"], exit: succeeds ? 0 : 4, durationMs: 1, ...("envelope" in seen ? { envelope: seen.envelope } : { envelope: null, problem: seen.problem, malformed: seen.malformed }) });
        expected.push(succeeds);
      }
      const report = foldJob({ jobId: `j${job}`, eventId: `e${job}`, runs, notRun: 0, cancelled: false, artifacts: [] });
      if (!validReport(report)) throw new Error(`job ${job}: ${JSON.stringify(validReport.errors)}`);
      expect(report.steps.map((s) => s.ok)).toEqual(expected);
      expect(report.cost_usd).toBe(roundUsd(report.steps.reduce((sum, s) => sum + s.cost_usd, 0)));
      for (const s of report.steps) if (!s.ok) expect(s.data).toBeNull();
    }
  });
});

describe("through job execute and receive", () => {
  let dir: string;
  let receiver: Awaited<ReturnType<typeof receiverProcess>>;
  let store: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "harness-fuzz-"));
    store = join(dir, "receiver.sqlite");
    receiver = await receiverProcess(["--for", "600", "--store", store], { AGENT_HARNESS_SECRET: SECRET });
  });
  afterAll(() => receiver?.stop());

  test("6 jobs of 15 lying steps: 0 INTERNAL, each delivered and stored once, every stored report valid against harness.job.execute@1", async () => {
    const rnd = random(34);
    const bin = misbehavingFleet(dir, "fuzz");
    for (let j = 0; j < 6; j++) {
      const steps = [];
      const expected: boolean[] = [];
      for (let i = 0; i < 15; i++) {
        const { value, succeeds } = envelope(rnd);
        writeFileSync(join(dir, `env-${j}-${i}.json`), JSON.stringify(value));
        steps.push({ argv: ["seo", "print", `env-${j}-${i}.json`], continue_on_error: true });
        expected.push(succeeds);
      }
      writeFileSync(join(dir, `job-${j}.json`), JSON.stringify({ id: `fuzz-${j}`, run_dir: `run-${j}`, steps, delivery: { url: `${receiver.url}/reports` } }));
      const p = Bun.spawn([bin, "job", "execute", "--job", join(dir, `job-${j}.json`), "--json"], { env: baseEnv({ AGENT_HARNESS_SECRET: SECRET }), stdout: "pipe", stderr: "pipe" });
      const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
      const r = JSON.parse(out);
      expect([code, r.ok, r.data.delivered.status]).toEqual([0, true, 200]);
      expect(r.data.steps.map((s: any) => s.ok)).toEqual(expected);
      // Each failed step says why: the tool's own error, an envelope that breaks the contract (and where), or no envelope at all.
      for (const s of r.data.steps.filter((x: any) => !x.ok)) expect(s.error.message).toMatch(/^(down|m$|the step's envelope breaks the contract at [a-z_.]+: |the step printed no envelope: stdout was not one envelope)/);
    }
    const events = storedEvents(store);
    expect(events.map((e) => e.job_id)).toEqual([0, 1, 2, 3, 4, 5].map((j) => `fuzz-${j}`));
    for (const e of events) if (!validReport(e.body)) throw new Error(`${e.job_id}: ${JSON.stringify(validReport.errors)}`);
  }, 120_000);
});
