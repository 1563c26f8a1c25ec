/**
 * `harness receive` on SIGTERM and SIGINT, the compiled binary: it stops
 * taking connections, lets the report being uploaded finish (answered and
 * stored once), and exits 130 with CANCELLED whose detail lists what it
 * accepted; its store holds exactly those events.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { foldJob } from "../../src/features/harness/fold.ts";
import { signedHeaders } from "../../src/features/harness/sign.ts";
import { receiverProcess, storedEvents } from "../helpers/harness.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { rounds } from "../helpers/rounds.ts";

const SECRET = "signals-secret-0123456789abcdef";
const ROUNDS = rounds(1, 3);

/** A report as the harness writes it, of a job whose one step did not run. */
const reportOf = (eventId: string): string =>
  JSON.stringify(foldJob({ jobId: "job-signals", eventId, runs: [], notRun: 1, cancelled: true, artifacts: [] }));

const measured: number[] = [];

/**
 * A signed upload of `report` whose body the test writes when it chooses
 * (`writer`); `answer` is the HTTP status, or the error's first words when
 * the connection is cut.
 */
function upload(url: string, report: string, eventId: string) {
  const body = new TransformStream<Uint8Array, Uint8Array>();
  const answer = fetch(`${url}/reports`, {
    method: "POST",
    body: body.readable,
    headers: { ...signedHeaders(SECRET, report, eventId, Date.now()), "content-length": String(report.length) },
  }).then(
    (r) => r.status,
    (e: Error) => e.message.split(":")[0]!,
  );
  return { writer: body.writable.getWriter(), answer };
}

describe("the receiver on a signal", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const)
    for (let round = 1; round <= ROUNDS; round++)
      test(`${signal}, round ${round}: the upload in flight is answered and stored, exit 130 with what was accepted`, async () => {
        const store = join(mkdtempSync(join(tmpdir(), "receiver-signals-")), "receiver.sqlite");
        const receiver = await receiverProcess(["--for", "600", "--store", store], { AGENT_HARNESS_SECRET: SECRET });
        const first = reportOf("evt-first");
        const done = await fetch(`${receiver.url}/reports`, {
          method: "POST",
          body: first,
          headers: signedHeaders(SECRET, first, "evt-first", Date.now()),
        });
        expect(done.status).toBe(200);
        // A second report, half uploaded when the signal comes: its sender finishes it 300 ms later.
        const second = reportOf("evt-in-flight");
        const half = Math.floor(second.length / 2);
        const { writer, answer } = upload(receiver.url, second, "evt-in-flight");
        await writer.write(new TextEncoder().encode(second.slice(0, half)));
        await Bun.sleep(200);
        const sent = performance.now();
        const exited = receiver.done.then(() => performance.now());
        receiver.stop(signal);
        await Bun.sleep(300);
        await writer.write(new TextEncoder().encode(second.slice(half))).catch(() => {});
        await writer.close().catch(() => {});
        const { code, json } = await receiver.done;
        const ms = Math.round((await exited) - sent);
        measured.push(ms);
        const status = await answer;
        console.log(`${signal} #${round}: exit ${code} after ${ms} ms; the upload in flight: ${status}`);
        expect(code).toBe(130);
        expect(json.error.code).toBe("CANCELLED");
        expect(status).toBe(200);
        expect(json.error.detail.accepted.map((a: any) => a.event_id)).toEqual(["evt-first", "evt-in-flight"]);
        expect(storedEvents(store).map((e) => e.event_id)).toEqual(["evt-first", "evt-in-flight"]);
        expect(ms).toBeLessThan(10_000); // a bound on a hang, not a measurement: the wind-down is 1.5 s
      }, 120_000);

  for (const signal of ["SIGTERM", "SIGINT"] as const)
    test(`${signal} while an upload stalls: no new connection is taken, and the receiver ends at its wind-down, storing nothing half-sent`, async () => {
      const store = join(mkdtempSync(join(tmpdir(), "receiver-signals-")), "receiver.sqlite");
      const receiver = await receiverProcess(["--for", "600", "--store", store], { AGENT_HARNESS_SECRET: SECRET });
      const report = reportOf("evt-stalled");
      const { writer, answer } = upload(receiver.url, report, "evt-stalled");
      await writer.write(new TextEncoder().encode(report.slice(0, 10)));
      await Bun.sleep(200);
      const sent = performance.now();
      const exited = receiver.done.then(() => performance.now());
      receiver.stop(signal);
      await Bun.sleep(100);
      const late = await fetch(`${receiver.url}/reports`, { method: "POST", body: "{}" }).then(
        (r) => r.status,
        (e: Error) => e.message.split(":")[0],
      );
      const { code, json } = await receiver.done;
      const ms = Math.round((await exited) - sent);
      measured.push(ms);
      const status = await answer;
      writer.abort().catch(() => {});
      console.log(
        `${signal}, a stalled upload: exit ${code} after ${ms} ms; the upload: ${status}; a new request: ${late}`,
      );
      expect(code).toBe(130);
      expect([json.error.code, json.error.detail.accepted]).toEqual(["CANCELLED", []]);
      expect(typeof late).toBe("string"); // refused: not an HTTP answer
      expect(typeof status).toBe("string"); // cut off with the connection
      expect(storedEvents(store)).toEqual([]);
      expect(ms).toBeLessThan(10_000); // a bound on a hang, not a measurement: the wind-down is 1.5 s
    }, 120_000);

  afterAll(() => {
    if (measured.length)
      console.log(
        `receiver: ${measured.length} runs, exit ${Math.min(...measured)}–${Math.max(...measured)} ms after the signal (bound: 2000 ms)`,
      );
  }, SLOW_HOOK);
});
