/**
 * The real `harness receive`, sent validly signed reports that break the
 * contract: each is refused with 422 and the path, and nothing of them is
 * stored; the same report unforged is accepted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { foldJob } from "../../src/features/harness/fold.ts";
import { signedHeaders } from "../../src/features/harness/sign.ts";
import { receiverProcess, storedEvents } from "../helpers/harness.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const SECRET = "forged-secret-0123456789abcdef";
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
const meta = (schema: string | null) => ({ schema, cost_usd: 0, llm_tokens: 0, outcome: null });

/** A report as the harness writes it: a failed audit, then a crawl that succeeded. */
const base = (eventId: string): any =>
  JSON.parse(
    JSON.stringify(
      foldJob({
        jobId: "job-forged",
        eventId,
        runs: [
          {
            index: 0,
            argv: ["seo", "audit"],
            exit: 4,
            durationMs: 1,
            envelope: {
              ok: false,
              tool: "seo",
              command: "audit",
              data: null,
              error: { code: "UPSTREAM_ERROR", message: "down", retryable: true },
              meta: meta(null),
            },
          },
          {
            index: 1,
            argv: ["seo", "crawl"],
            exit: 0,
            durationMs: 1,
            envelope: { ok: true, tool: "seo", command: "crawl", data: CRAWL, error: null, meta: meta("seo.crawl@1") },
          },
        ],
        notRun: 0,
        cancelled: false,
        artifacts: [],
      }),
    ),
  );

const FORGED: [string, (r: any) => unknown, string][] = [
  ["status banana", (r) => ({ ...r, status: "banana" }), "$.status"],
  ["no cost_usd", ({ cost_usd, ...r }) => r, "$.cost_usd"],
  ["no artifacts", ({ artifacts, ...r }) => r, "$.artifacts"],
  ["tokens concatenated as a string", (r) => ({ ...r, llm_tokens: "-100lots1000" }), "$.llm_tokens"],
  ["a negative total cost", (r) => ({ ...r, cost_usd: -4.88 }), "$.cost_usd"],
  [
    "a failed step carrying data",
    (r) => ({ ...r, steps: [{ ...r.steps[0], data: { pages: 1 } }, r.steps[1]] }),
    "$.steps[0].data",
  ],
  [
    "a failed step without its error",
    (r) => ({ ...r, steps: [{ ...r.steps[0], error: null }, r.steps[1]] }),
    "$.steps[0].error",
  ],
  [
    "a seo step claiming brain.note.list@1",
    (r) => ({ ...r, steps: [r.steps[0], { ...r.steps[1], schema: "brain.note.list@1", data: { items: [] } }] }),
    "$.steps[1].schema",
  ],
];

let receiver: Awaited<ReturnType<typeof receiverProcess>>;
let store: string;
beforeAll(async () => {
  store = join(mkdtempSync(join(tmpdir(), "harness-forged-")), "receiver.sqlite");
  receiver = await receiverProcess(["--for", "120", "--store", store], { AGENT_HARNESS_SECRET: SECRET });
}, SLOW_HOOK);
afterAll(() => receiver?.stop(), SLOW_HOOK);

const post = (report: unknown, eventId: string) => {
  const body = JSON.stringify(report);
  return fetch(`${receiver.url}/reports`, {
    method: "POST",
    body,
    headers: signedHeaders(SECRET, body, eventId, Date.now()),
  });
};

describe("the receiver stores only what the contract allows", () => {
  for (const [what, forge, path] of FORGED)
    test(`a signed report with ${what}: 422 at ${path}, nothing stored`, async () => {
      const eventId = `evt-${what.replaceAll(/\W+/g, "-")}`;
      const res = await post(forge(base(eventId)), eventId);
      expect([res.status, ((await res.json()) as any).path]).toEqual([422, path]);
      expect(storedEvents(store).filter((e) => e.event_id === eventId)).toEqual([]);
    });

  test("the same report, unforged, is accepted and stored once", async () => {
    const res = await post(base("evt-genuine"), "evt-genuine");
    expect(res.status).toBe(200);
    expect(storedEvents(store).map((e) => e.event_id)).toEqual(["evt-genuine"]);
  });
});
