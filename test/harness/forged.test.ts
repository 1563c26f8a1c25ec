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
import { binary, run } from "../helpers/bin.ts";
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
  ["a total cost of 1e308", (r) => ({ ...r, cost_usd: 1e308 }), "$.cost_usd"],
  [
    "a step cost of 5e6, over the harness's bound of 1e6 a step (and the total its sum)",
    (r) => ({ ...r, cost_usd: 5e6, steps: [r.steps[0], { ...r.steps[1], cost_usd: 5e6 }] }),
    "$.steps[1].cost_usd",
  ],
  ["a total cost that is not the sum of the steps'", (r) => ({ ...r, cost_usd: 0.5 }), "$.cost_usd"],
  [
    "a step's tokens over the harness's bound (and the total their sum)",
    (r) => ({ ...r, llm_tokens: 2e12, steps: [r.steps[0], { ...r.steps[1], llm_tokens: 2e12 }] }),
    "$.steps[1].llm_tokens",
  ],
  ["a total of tokens that is not the sum of the steps'", (r) => ({ ...r, llm_tokens: 7 }), "$.llm_tokens"],
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

  test("a total that is the sum of the steps' costs as the harness rounds it (0.1 + 0.2 = 0.3) is accepted", async () => {
    const r = base("evt-summed");
    r.steps[0].cost_usd = 0.1;
    r.steps[1].cost_usd = 0.2;
    r.cost_usd = 0.3;
    r.steps[1].llm_tokens = 40;
    r.llm_tokens = 40;
    expect((await post(r, "evt-summed")).status).toBe(200);
  });

  test("a second receiver on the port another listens on refuses to start (INVALID_INPUT, exit 3) instead of sharing it", async () => {
    const port = new URL(receiver.url).port;
    const second = await run(binary("harness"), ["receive", "--listen", `127.0.0.1:${port}`, "--for", "3", "--json"], {
      env: { AGENT_HARNESS_SECRET: SECRET },
      cwd: mkdtempSync(join(tmpdir(), "harness-second-")),
    });
    expect([second.code, second.json.error?.code]).toEqual([3, "INVALID_INPUT"]);
    expect(second.json.error.message).toContain(`127.0.0.1:${port} is in use`);
  });
});
