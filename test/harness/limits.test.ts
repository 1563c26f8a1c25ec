/**
 * Time limits and process groups, through the compiled harness beside tools
 * that misbehave on purpose: a step that hangs, one whose child ignores TERM,
 * one that leaves a TERM-proof child holding its stdout, and a job cancelled
 * mid-step. Each ends (TERM, then KILL after the grace period), leaves no
 * process behind (counted by a marker in their argv), and its report is
 * delivered to the real receiver.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseEnv } from "../helpers/bin.ts";
import { leftovers, misbehavingFleet, receiverProcess, storedEvents } from "../helpers/harness.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const SECRET = "limits-secret-0123456789";
const CRAWL = {
  source: { kind: "dir", location: "/s" },
  start_url: "https://h.example/",
  pages: 1,
  by_status: { "200": 1 },
  redirected: 0,
  skipped: {},
  robots_txt: false,
  dry_run: false,
  artifact: "/r/crawl.json",
};
const GOOD = {
  ok: true,
  contract_version: 0,
  tool: "seo",
  command: "crawl",
  data: CRAWL,
  error: null,
  meta: { schema: "seo.crawl@1", cost_usd: 0.25, llm_tokens: 10, outcome: null },
};

let dir: string;
let receiver: Awaited<ReturnType<typeof receiverProcess>>;
let store: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "harness-limits-"));
  store = join(dir, "receiver.sqlite");
  receiver = await receiverProcess(["--for", "600", "--store", store], { AGENT_HARNESS_SECRET: SECRET });
}, SLOW_HOOK);
afterAll(() => receiver?.stop(), SLOW_HOOK);

/** A job of `steps` in a folder of its own (whose name is the marker its processes carry), delivered to the receiver. */
function jobOf(
  name: string,
  steps: unknown[],
  extra: Record<string, unknown> = {},
): { job: string; marker: string; bin: string } {
  const jobDir = mkdtempSync(join(dir, `${name}-`));
  const marker = `mark-${jobDir.slice(-6)}-${name}`;
  const bin = misbehavingFleet(jobDir, marker);
  writeFileSync(join(jobDir, "good.json"), JSON.stringify(GOOD));
  writeFileSync(
    join(jobDir, "job.json"),
    JSON.stringify({
      id: `job-${name}`,
      run_dir: "run",
      steps,
      delivery: { url: `${receiver.url}/reports` },
      ...extra,
    }),
  );
  return { job: join(jobDir, "job.json"), marker, bin };
}

async function execute(bin: string, job: string, onStart?: (p: Bun.Subprocess) => Promise<void>) {
  const p = Bun.spawn([bin, "job", "execute", "--job", job, "--json"], {
    env: baseEnv({ AGENT_HARNESS_SECRET: SECRET }),
    stdout: "pipe",
    stderr: "pipe",
  });
  void onStart?.(p);
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  return { code, json: JSON.parse(out) };
}

const stored = (jobId: string) => storedEvents(store).filter((e) => e.job_id === jobId);

describe("a step's time limit ends its whole process group", () => {
  test("a step that hangs is ended by TERM at its limit: timed out, the signal named, the report delivered, nothing left", async () => {
    for (let round = 0; round < 3; round++) {
      const { job, marker, bin } = jobOf(
        `hang${round}`,
        [
          { argv: ["seo", "print", "good.json"] },
          { argv: ["seo", "hang"], timeout_seconds: 1 },
          { argv: ["seo", "print", "good.json"] },
        ],
        { grace_seconds: 2 },
      );
      const r = await execute(bin, job);
      expect(leftovers(marker)).toEqual([]);
      const step = r.json.data.steps[1];
      expect([r.code, r.json.data.status, r.json.data.not_run]).toEqual([0, "partial", 1]);
      expect([step.ok, step.stopped, step.signal, step.error.code]).toEqual([
        false,
        "time-limit",
        "SIGTERM",
        "UPSTREAM_TIMEOUT",
      ]);
      expect(step.error.message).toBe("the step ran past its time limit of 1 s and was ended by SIGTERM");
      // It ran to its limit, and not past limit + grace (the harness's own record of the step).
      expect(step.duration_ms).toBeGreaterThanOrEqual(1000);
      expect(step.duration_ms).toBeLessThan(1000 + 2000 + 1500);
      expect(r.json.data.delivered.status).toBe(200);
      expect(stored(`job-hang${round}`).map((e) => [e.event_id, e.body.status])).toEqual([
        [r.json.data.event_id, "partial"],
      ]);
    }
  }, 120_000);

  test("a step whose child ignores TERM, and which ignores it too: KILL after the grace period, nothing left", async () => {
    for (let round = 0; round < 2; round++) {
      const { job, marker, bin } = jobOf(`stubborn${round}`, [{ argv: ["seo", "stubborn"], timeout_seconds: 1 }], {
        grace_seconds: 1,
      });
      const r = await execute(bin, job);
      expect(leftovers(marker)).toEqual([]);
      const step = r.json.data.steps[0];
      expect([r.code, r.json.data.status, step.stopped, step.signal, step.exit]).toEqual([
        0,
        "failed",
        "time-limit",
        "SIGKILL",
        137,
      ]);
      expect(step.duration_ms).toBeGreaterThanOrEqual(1000 + 1000);
      expect(step.duration_ms).toBeLessThan(1000 + 1000 + 1500);
      expect(stored(`job-stubborn${round}`).map((e) => e.body.steps[0].signal)).toEqual(["SIGKILL"]);
    }
  }, 120_000);

  test("a step that succeeds but leaves a TERM-proof child holding its stdout: the job goes on, the child is ended", async () => {
    const { job, marker, bin } = jobOf(
      "leave",
      [{ argv: ["seo", "leave", "good.json"] }, { argv: ["seo", "print", "good.json"] }],
      { grace_seconds: 1 },
    );
    const r = await execute(bin, job);
    expect(leftovers(marker)).toEqual([]);
    expect([r.code, r.json.data.status, r.json.data.steps.map((s: any) => [s.ok, s.signal])]).toEqual([
      0,
      "succeeded",
      [
        [true, null],
        [true, null],
      ],
    ]);
    expect([r.json.data.cost_usd, r.json.data.llm_tokens]).toEqual([0.5, 20]);
    expect(stored("job-leave").length).toBe(1);
  }, 120_000);
});

describe("a job cancelled mid-step", () => {
  test("SIGTERM while a step's TERM-proof group runs: the group is ended, the report (cancelled) is kept and delivered, exit 130, nothing left", async () => {
    for (let round = 0; round < 2; round++) {
      const { job, marker, bin } = jobOf(
        `cancel${round}`,
        [
          { argv: ["seo", "print", "good.json"] },
          { argv: ["seo", "stubborn"] },
          { argv: ["seo", "print", "good.json"] },
        ],
        { grace_seconds: 1 },
      );
      // The signal comes once the step's processes run: both carry the marker.
      const r = await execute(bin, job, async (p) => {
        while (leftovers(marker).length < 2) await Bun.sleep(20);
        p.kill("SIGTERM");
      });
      expect(leftovers(marker)).toEqual([]);
      expect([r.code, r.json.error.code]).toEqual([130, "CANCELLED"]);
      const detail = r.json.error.detail;
      expect([
        detail.status,
        detail.cancelled,
        detail.not_run,
        detail.steps.map((s: any) => [s.ok, s.stopped, s.signal]),
      ]).toEqual([
        "cancelled",
        true,
        1,
        [
          [true, null, null],
          [false, "cancelled", "SIGKILL"],
        ],
      ]);
      expect(detail.delivered.status).toBe(200);
      const kept = JSON.parse(readFileSync(detail.report, "utf8"));
      expect(kept.status).toBe("cancelled");
      expect(stored(`job-cancel${round}`).map((e) => [e.event_id, e.body.status])).toEqual([
        [kept.event_id, "cancelled"],
      ]);
    }
  }, 120_000);
});
