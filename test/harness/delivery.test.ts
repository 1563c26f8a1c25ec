/**
 * Delivery and the receiving side as libraries, over real HTTP on 127.0.0.1
 * and real stores (SQLite and PostgreSQL); a job's steps and its
 * cancellation through the compiled binary.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileTool } from "../../src/kit/compile/index.ts";
import { deliver } from "../../src/features/harness/deliver.ts";
import { SchemaRegistry } from "../../src/features/harness/ingest.ts";
import { createReceiver } from "../../src/features/harness/receiver.ts";
import { signedHeaders } from "../../src/features/harness/sign.ts";
import { openEventStore } from "../../src/features/harness/store.ts";
import type { KitError } from "../../src/kit/output/errors.ts";
import seo from "../../tools/seo/tool.ts";
import harness from "../../tools/harness/tool.ts";
import { foldJob } from "../../src/features/harness/fold.ts";
import { baseEnv, binary, root } from "../helpers/bin.ts";
import { LEDGER_ENGINES } from "../helpers/mutation.ts";
import { serveSite } from "../helpers/site-server.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const SECRET = "s3cret-for-delivery-tests";
const servers: { stop(force?: boolean): void }[] = [];
afterAll(() => {
  for (const s of servers) s.stop(true);
}, SLOW_HOOK);
const serve = (fetch: (req: Request) => Response | Promise<Response>) => {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
  servers.push(s);
  return `http://127.0.0.1:${s.port}`;
};
const opts = (eventId: string) => ({
  secret: SECRET,
  eventId,
  now: Date.now,
  signal: new AbortController().signal,
  backoffMs: [10],
  redact: (t: string) => t,
});

describe("deliver", () => {
  test("a 4xx is the receiver's refusal: one attempt, not retried, not retryable", async () => {
    let calls = 0;
    const url = serve(() => (calls++, Response.json({ reason: "bad-signature" }, { status: 401 })));
    const e = (await deliver(url, "{}", opts("e1")).catch((x) => x)) as KitError;
    expect([e.code, e.retryable, e.detail, calls]).toEqual(["UPSTREAM_ERROR", false, { status: 401, attempts: 1 }, 1]);
  });

  test("5xx and dropped connections are retried, within a bound; each attempt is signed afresh with the same event id", async () => {
    const seen: string[] = [];
    const url = serve(
      (req) => (seen.push(`${req.headers.get("x-harness-event-id")}`), new Response("down", { status: 503 })),
    );
    const e = (await deliver(url, "{}", { ...opts("e2"), attempts: 3 }).catch((x) => x)) as KitError;
    expect([e.code, e.retryable, seen]).toEqual(["UPSTREAM_ERROR", true, ["e2", "e2", "e2"]]);
    const closed = (await deliver("http://127.0.0.1:9/", "{}", { ...opts("e3"), attempts: 2 }).catch(
      (x) => x,
    )) as KitError;
    expect([closed.code, closed.detail]).toEqual(["UPSTREAM_ERROR", { attempts: 2 }]);
  });
});

describe("what the sender copies, and where it sends", () => {
  test("a receiver's development error page (HTML, a stack, its paths) is not copied into the sender's error", async () => {
    // What the receiver answered before its store failures were caught: Bun's development page, from a server of its own.
    const script = `const s = Bun.serve({ hostname: "127.0.0.1", port: 0, development: true, fetch() { throw new Error("store failed at /srv/receiver/secret-path"); } }); console.log(s.port);`;
    const dev = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "ignore" });
    servers.push({ stop: () => dev.kill() });
    const reader = dev.stdout.getReader();
    const port = new TextDecoder().decode((await reader.read()).value).trim();
    const page = await (await fetch(`http://127.0.0.1:${port}/`, { method: "POST" })).text();
    expect(page).toContain("secret-path");
    const e = (await deliver(`http://127.0.0.1:${port}/`, "{}", { ...opts("e4"), attempts: 2 }).catch(
      (x) => x,
    )) as KitError;
    expect(e.code).toBe("UPSTREAM_ERROR");
    expect(e.message).toMatch(/: 500 \(text\/html of \d+ bytes, not shown\)$/);
    expect(e.message).not.toContain("secret-path");
    expect(e.message.length).toBeLessThan(200);
  });

  test("a JSON refusal is copied as its reason, path and message, no more", async () => {
    const url = serve(() =>
      Response.json(
        {
          accepted: false,
          reason: "schema",
          path: "$.status",
          message: "must be equal to one of the allowed values",
          padding: "x".repeat(5000),
        },
        { status: 422 },
      ),
    );
    const e = (await deliver(url, "{}", opts("e5")).catch((x) => x)) as KitError;
    expect(e.message).toBe(
      "the receiver refused the report: 422 schema: $.status: must be equal to one of the allowed values",
    );
  });

  test("a 307 is refused, never followed with the signed body; delivered.url could only name where it went", async () => {
    let followed = 0;
    const target = serve(() => (followed++, Response.json({ accepted: true })));
    let calls = 0;
    const url = serve(
      () => (calls++, new Response(null, { status: 307, headers: { location: `${target}/elsewhere` } })),
    );
    const e = (await deliver(url, "{}", opts("e6")).catch((x) => x)) as KitError;
    expect([e.code, e.retryable, e.detail, calls, followed]).toEqual([
      "UPSTREAM_ERROR",
      false,
      { status: 307, attempts: 1 },
      1,
      0,
    ]);
    expect(e.message).toContain("a redirect");
  });
});

describe("the receiver's own failures", () => {
  test("a store that throws answers 503 with short JSON: no stack, no path; the sender retries it", async () => {
    const store = {
      record: () => Promise.reject(new Error("SQLITE_IOERR: disk I/O error at /var/lib/receiver/events.sqlite")),
      events: async () => [],
      close: async () => {},
    };
    const url = serve(createReceiver({ secret: SECRET, store, registry, now: Date.now }));
    const body = report("evt-store-down", CRAWL);
    const res = await fetch(url, {
      method: "POST",
      body,
      headers: signedHeaders(SECRET, body, "evt-store-down", Date.now()),
    });
    const text = await res.text();
    expect([res.status, res.headers.get("retry-after"), JSON.parse(text)]).toEqual([
      503,
      "1",
      { accepted: false, reason: "store-unavailable", message: "the event store is unavailable; retry later" },
    ]);
    expect(text).not.toMatch(/\/var\/lib|SQLITE|at /);
    const e = (await deliver(url, body, { ...opts("evt-store-down"), attempts: 2 }).catch((x) => x)) as KitError;
    expect([e.code, e.retryable, e.message]).toEqual([
      "UPSTREAM_ERROR",
      true,
      `the report was not delivered to ${url} after 2 attempts: 503 store-unavailable: the event store is unavailable; retry later`,
    ]);
  });
});

const registry = SchemaRegistry.of([compileTool(seo).describe, compileTool(harness).describe]);
const envelope = (data: unknown) => ({
  ok: true,
  tool: "seo",
  command: "crawl",
  data,
  error: null,
  meta: { schema: "seo.crawl@1", cost_usd: 0, llm_tokens: 0, outcome: null },
});
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
const report = (eventId: string, data: unknown) =>
  JSON.stringify(
    foldJob({
      jobId: "j",
      eventId,
      runs: [{ index: 0, argv: ["seo", "crawl"], exit: 0, envelope: envelope(data), durationMs: 1 }],
      notRun: 0,
      cancelled: false,
      artifacts: [],
    }),
  );

for (const [engine, url] of Object.entries(LEDGER_ENGINES))
  describe(`the receiver, storing in ${engine}`, () => {
    test("accepts a report once, refuses its replay after a restart, and refuses data that breaks its schema with the path", async () => {
      const dir = mkdtempSync(join(tmpdir(), "receiver-"));
      const eventId = `evt-${engine}-${dir.slice(-6)}`;
      const start = async () => {
        const store = await openEventStore(url(), join(dir, "events.sqlite"));
        return { store, url: serve(createReceiver({ secret: SECRET, store, registry, now: Date.now })) };
      };
      const post = (to: string, body: string, id: string) =>
        fetch(to, { method: "POST", body, headers: signedHeaders(SECRET, body, id, Date.now()) });
      const good = report(eventId, {
        source: { kind: "dir", location: "/s" },
        start_url: "https://h.example/",
        pages: 1,
        by_status: { "200": 1 },
        redirected: 0,
        skipped: {},
        robots_txt: false,
        dry_run: false,
        artifact: "/r/crawl.json",
      });
      const first = await start();
      const a = await post(first.url, good, eventId);
      await first.store.close();
      const second = await start();
      const b = await post(second.url, good, eventId);
      const bad = report(`${eventId}-bad`, { pages: "one" });
      const c = await post(second.url, bad, `${eventId}-bad`);
      const stored = (await second.store.events()).filter((e) => e.eventId.startsWith(eventId));
      await second.store.close();
      expect([a.status, b.status, c.status]).toEqual([200, 409, 422]);
      expect(await c.json()).toMatchObject({
        reason: "schema",
        step: 0,
        schema: "seo.crawl@1",
        path: "$.steps[0].data.source",
        message: "must have required property 'source'",
      });
      expect(stored.map((e) => e.eventId)).toEqual([eventId]);
    });
  });

describe("harness job execute, as a process", () => {
  const jobIn = (dir: string, steps: unknown[]) => {
    writeFileSync(join(dir, "job.json"), JSON.stringify({ id: "job-x", run_dir: "run", steps }));
    return join(dir, "job.json");
  };
  const execute = async (job: string, signalWhen?: Promise<void>) => {
    const p = Bun.spawn([binary("harness"), "job", "execute", "--job", job, "--json"], {
      env: baseEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    void signalWhen?.then(() => p.kill("SIGTERM"));
    const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    return { code, json: JSON.parse(out) };
  };

  test("a failed step stops the job unless it continues on error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "job-"));
    const site = join(root, "examples", "site");
    const stop = await execute(
      jobIn(dir, [{ argv: ["seo", "audit", "--severity", "urgent"] }, { argv: ["seo", "crawl", "--dir", site] }]),
    );
    expect([stop.code, stop.json.data.status, stop.json.data.not_run, stop.json.data.errors[0].error.code]).toEqual([
      0,
      "failed",
      1,
      "INVALID_ENUM",
    ]);
    const go = await execute(
      jobIn(dir, [
        { argv: ["seo", "audit", "--severity", "urgent"], continue_on_error: true },
        { argv: ["seo", "crawl", "--dir", site] },
      ]),
    );
    expect([go.json.data.status, go.json.data.not_run, go.json.data.steps.map((s: any) => s.ok)]).toEqual([
      "partial",
      0,
      [false, true],
    ]);
    expect(JSON.parse(readFileSync(go.json.data.report, "utf8")).event_id).toBe(go.json.data.event_id);
  });

  test("SIGTERM stops the running step; CANCELLED says what ran, and the report is kept (status cancelled)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "job-"));
    // The second step's crawl waits on /a for as long as the test lets it: the signal comes while it does.
    const slow = serveSite({
      "/": { body: "<html><body><a href='/a'>a</a></body></html>" },
      "/a": { body: "<html></html>", hold: new Promise<void>(() => {}) },
    });
    try {
      const job = jobIn(dir, [
        { argv: ["seo", "crawl", "--dir", join(root, "examples", "site")] },
        { argv: ["seo", "crawl", "--url", slow.url, "--timeout", "60000", "--run-dir", join(dir, "slow")] },
        { argv: ["seo", "extract"] },
      ]);
      const started = Date.now();
      const r = await execute(job, slow.requested("/a"));
      expect(Date.now() - started).toBeLessThan(15_000);
      expect([r.code, r.json.error.code]).toEqual([130, "CANCELLED"]);
      expect(r.json.error.detail.steps.map((s: any) => [s.command, s.ok, s.stopped])).toEqual([
        ["crawl", true, null],
        ["crawl", false, "cancelled"],
      ]);
      expect(r.json.error.detail.not_run).toBe(1);
      const kept = JSON.parse(readFileSync(join(dir, "run", "report.json"), "utf8"));
      expect([kept.status, kept.cancelled, kept.steps.length, kept.errors[0].error.code]).toEqual([
        "cancelled",
        true,
        2,
        "CANCELLED",
      ]);
    } finally {
      slow.stop();
    }
  }, 120_000);
});
