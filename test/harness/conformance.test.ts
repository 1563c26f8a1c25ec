/**
 * The harness-conformance test contract §12 asks for: for a table of
 * envelopes (success, each error class, a partial apply, an LLM step with
 * cost), the folded job response is the one written here; and a step whose
 * data breaks its schema is rejected at ingest, naming the step, the schema
 * id and the path.
 */
import { describe, expect, test } from "bun:test";
import { foldJob, type StepEnvelope, type StepRun } from "../../src/features/harness/fold.ts";
import { ingest, SchemaRegistry } from "../../src/features/harness/ingest.ts";
import { compileTool } from "../../src/kit/compile/index.ts";
import seo from "../../tools/seo/tool.ts";
import brain from "../../tools/brain/tool.ts";
import gate from "../../tools/gate/tool.ts";
import harness from "../../tools/harness/tool.ts";

const outcome = (unit = "count", projected: number | null = null, realized: number | null = null) => ({
  unit,
  projected,
  realized,
  cost_usd: 0,
  confidence: null,
});
const ok = (
  tool: string,
  command: string,
  schema: string,
  data: unknown,
  extra: Partial<StepEnvelope["meta"]> = {},
): StepEnvelope => ({
  ok: true,
  tool,
  command,
  data,
  error: null,
  meta: { schema, cost_usd: 0, llm_tokens: 0, outcome: outcome(), next: [], ...extra },
});
const failed = (
  tool: string,
  command: string,
  code: string,
  retryable = false,
  detail?: Record<string, unknown>,
): StepEnvelope => ({
  ok: false,
  tool,
  command,
  data: null,
  error: { code, message: `${code.toLowerCase()} happened`, retryable, ...(detail ? { detail } : {}) },
  meta: { schema: null, cost_usd: 0, llm_tokens: 0, outcome: outcome(), next: [] },
});
const run = (
  index: number,
  argv: string[],
  exit: number,
  envelope: StepEnvelope | null,
  problem?: string,
): StepRun => ({ index, argv, exit, envelope, durationMs: 10 + index, ...(problem ? { problem } : {}) });

const CRAWL = {
  source: { kind: "dir", location: "/s" },
  start_url: "https://h.example/",
  pages: 3,
  by_status: { "200": 3 },
  redirected: 0,
  skipped: {},
  robots_txt: false,
  dry_run: false,
  artifact: "/r/crawl.json",
};

describe("folding envelopes into the job response", () => {
  test("every step succeeds: succeeded, next commands collected, nothing in errors", () => {
    const runs = [
      run(
        0,
        ["seo", "crawl", "--dir", "s"],
        0,
        ok("seo", "crawl", "seo.crawl@1", CRAWL, { next: ["seo extract --run-dir /r"] }),
      ),
      run(
        1,
        ["gate", "review", "--plan", "/r"],
        0,
        ok("gate", "review", "gate.review@1", { approved: true }, { next: [] }),
      ),
    ];
    expect(foldJob({ jobId: "j1", eventId: "e1", runs, notRun: 0, cancelled: false, artifacts: [] })).toEqual({
      job_id: "j1",
      event_type: "job.completed",
      event_id: "e1",
      status: "succeeded",
      cancelled: false,
      steps: [
        {
          step: 0,
          tool: "seo",
          command: "crawl",
          argv: ["seo", "crawl", "--dir", "s"],
          exit: 0,
          ok: true,
          schema: "seo.crawl@1",
          outcome: outcome(),
          duration_ms: 10,
          cost_usd: 0,
          llm_tokens: 0,
          data: CRAWL,
          error: null,
          signal: null,
          stopped: null,
          remedy: null,
        },
        {
          step: 1,
          tool: "gate",
          command: "review",
          argv: ["gate", "review", "--plan", "/r"],
          exit: 0,
          ok: true,
          schema: "gate.review@1",
          outcome: outcome(),
          duration_ms: 11,
          cost_usd: 0,
          llm_tokens: 0,
          data: { approved: true },
          error: null,
          signal: null,
          stopped: null,
          remedy: null,
        },
      ],
      not_run: 0,
      cost_usd: 0,
      llm_tokens: 0,
      errors: [],
      next: [{ step: 0, commands: ["seo extract --run-dir /r"] }],
      artifacts: [],
    });
  });

  // Each error class (contract §5): the step's exit, its code; the job fails at it and the rest are not run.
  const classes: [string, number, boolean][] = [
    ["INVALID_ENUM", 2, false],
    ["MISSING_ARTIFACT", 3, false],
    ["UPSTREAM_ERROR", 4, true],
    ["APPROVAL_REQUIRED", 5, false],
    ["INTERNAL", 1, false],
    ["CANCELLED", 130, true],
  ];
  for (const [code, exit, retryable] of classes)
    test(`a ${code} step (exit ${exit}) is a structured error; the job failed at it`, () => {
      const runs = [run(0, ["seo", "audit", "--severity", "x"], exit, failed("seo", "audit", code, retryable))];
      const r = foldJob({ jobId: "j", eventId: "e", runs, notRun: 2, cancelled: false, artifacts: [] });
      expect({
        status: r.status,
        not_run: r.not_run,
        ok: r.steps[0]!.ok,
        data: r.steps[0]!.data,
        errors: r.errors,
      }).toEqual({
        status: "failed",
        not_run: 2,
        ok: false,
        data: null,
        errors: [
          {
            step: 0,
            tool: "seo",
            command: "audit",
            error: { code, message: `${code.toLowerCase()} happened`, retryable },
          },
        ],
      });
    });

  test("a partial apply after a successful plan: partial, the apply's per-item detail kept in its error", () => {
    const items = [
      { id: "i1", outcome: "applied" },
      { id: "i2", outcome: "failed" },
    ];
    const runs = [
      run(
        0,
        ["seo", "plan"],
        0,
        ok(
          "seo",
          "plan",
          "seo.plan@1",
          { plan: "/r/plan.json", checksum: "sha256:x", expiry: "t", items: [] },
          { next: ["gate review --plan /r"] },
        ),
      ),
      run(
        1,
        ["seo", "apply", "--plan", "/r"],
        3,
        failed("seo", "apply", "PRECONDITION_FAILED", false, { status: "partial", executed: 1, items }),
      ),
    ];
    const r = foldJob({ jobId: "j", eventId: "e", runs, notRun: 0, cancelled: false, artifacts: [] });
    expect(r.status).toBe("partial");
    expect(r.errors).toEqual([
      {
        step: 1,
        tool: "seo",
        command: "apply",
        error: {
          code: "PRECONDITION_FAILED",
          message: "precondition_failed happened",
          retryable: false,
          detail: { status: "partial", executed: 1, items },
        },
      },
    ]);
    expect(r.next).toEqual([{ step: 0, commands: ["gate review --plan /r"] }]);
  });

  test("an LLM step's cost and tokens are summed with the others', to 1e-8 USD", () => {
    const llm = ok(
      "seo",
      "synthesize",
      "seo.synthesize@1",
      {},
      { cost_usd: 0.00012345678, llm_tokens: 1801, outcome: outcome("usd", 0.5) },
    );
    const runs = [
      run(0, ["seo", "score"], 0, ok("seo", "score", "seo.score@1", {}, { cost_usd: 0.000000004 })),
      run(1, ["seo", "synthesize"], 0, llm),
    ];
    const r = foldJob({ jobId: "j", eventId: "e", runs, notRun: 0, cancelled: false, artifacts: [] });
    expect([r.status, r.cost_usd, r.llm_tokens, r.steps[1]!.outcome]).toEqual([
      "succeeded",
      0.00012346,
      1801,
      outcome("usd", 0.5),
    ]);
  });

  test("a step that printed no envelope is an INTERNAL error naming what it printed", () => {
    const r = foldJob({
      jobId: "j",
      eventId: "e",
      runs: [run(0, ["brain", "search", "--query", "q"], 1, null, "stdout was not one envelope: Segfault")],
      notRun: 0,
      cancelled: false,
      artifacts: [],
    });
    expect(r.errors[0]).toEqual({
      step: 0,
      tool: "brain",
      command: "search",
      error: {
        code: "INTERNAL",
        message: "the step printed no envelope: stdout was not one envelope: Segfault",
        retryable: false,
      },
    });
  });

  test("a step killed by a signal names the signal, not just 'nothing on stdout'", () => {
    const r = foldJob({
      jobId: "j",
      eventId: "e",
      runs: [{ ...run(0, ["seo", "crawl"], 137, null, "nothing on stdout"), signal: "SIGKILL" }],
      notRun: 0,
      cancelled: false,
      artifacts: [],
    });
    expect([r.steps[0]!.signal, r.errors[0]!.error]).toEqual([
      "SIGKILL",
      {
        code: "INTERNAL",
        message: "the step printed no envelope: nothing on stdout (killed by SIGKILL)",
        retryable: false,
      },
    ]);
  });

  test("a step that prints ok: true but exits 1 is a failed step with an entry in errors[], and its data is dropped", () => {
    const r = foldJob({
      jobId: "j",
      eventId: "e",
      runs: [run(0, ["seo", "crawl"], 1, ok("seo", "crawl", "seo.crawl@1", CRAWL))],
      notRun: 0,
      cancelled: false,
      artifacts: [],
    });
    expect([r.status, r.steps[0]!.ok, r.steps[0]!.data]).toEqual(["failed", false, null]);
    expect(r.errors).toEqual([
      {
        step: 0,
        tool: "seo",
        command: "crawl",
        error: { code: "UPSTREAM_ERROR", message: "the step printed ok: true but exited 1", retryable: false },
      },
    ]);
  });

  test("continue_on_error and a cancellation: partial, cancelled, the rest not run", () => {
    const runs = [
      run(0, ["seo", "audit"], 2, failed("seo", "audit", "INVALID_ENUM")),
      run(1, ["seo", "page", "list"], 0, ok("seo", "page list", "seo.page.list@1", { items: [] })),
    ];
    expect(foldJob({ jobId: "j", eventId: "e", runs, notRun: 3, cancelled: true, artifacts: [] })).toMatchObject({
      status: "cancelled",
      cancelled: true,
      not_run: 3,
    });
  });
});

describe("ingest validation", () => {
  const registry = SchemaRegistry.of([seo, brain, gate, harness].map((t) => compileTool(t).describe));
  // A report as the harness writes it: a failed step, then a successful one claiming `schema`.
  const report = (data: unknown, schema = "seo.crawl@1", tool = "seo") =>
    JSON.parse(
      JSON.stringify(
        foldJob({
          jobId: "j",
          eventId: "e",
          runs: [
            run(0, ["seo", "audit"], 2, failed("seo", "audit", "INVALID_ENUM")),
            run(1, [tool, "crawl"], 0, ok(tool, "crawl", schema, data)),
          ],
          notRun: 0,
          cancelled: false,
          artifacts: [],
        }),
      ),
    );

  test("a report whose steps' data match their schemas is accepted", () => {
    expect(registry.size).toBeGreaterThan(20);
    expect(ingest(report(CRAWL), registry)).toEqual({ ok: true });
  });

  test("data that breaks its schema rejects the whole report, naming the step, the schema and the JSON path", () => {
    expect(ingest(report({ ...CRAWL, source: { kind: "ftp", location: "/s" } }), registry)).toEqual({
      ok: false,
      step: 1,
      schema: "seo.crawl@1",
      path: "$.steps[1].data.source.kind",
      message: "must be equal to one of the allowed values",
    });
    expect(ingest(report({ ...CRAWL, pages: "3" }), registry)).toMatchObject({
      ok: false,
      path: "$.steps[1].data.pages",
    });
    expect(ingest(report({ ...CRAWL, extra: 1 }), registry)).toMatchObject({
      ok: false,
      path: "$.steps[1].data.extra",
      message: "must NOT have additional properties",
    });
  });

  test("a schema id nobody registered, or a report that is not one, is rejected", () => {
    expect(ingest(report({}, "seo.crawl@9"), registry)).toMatchObject({
      ok: false,
      step: 1,
      schema: "seo.crawl@9",
      message: "no schema is registered for seo.crawl@9",
    });
    expect(ingest({ job_id: "j" }, registry)).toMatchObject({
      ok: false,
      path: "$.event_type",
      schema: "harness.job.execute@1",
    });
  });

  // Each forged report carries a valid signature in the field; the receiver's ingest is what stops it.
  const forged: [string, (r: any) => unknown, string, string][] = [
    [
      "a status outside the set",
      (r) => ({ ...r, status: "banana" }),
      "$.status",
      "must be equal to one of the allowed values",
    ],
    ["no cost_usd", ({ cost_usd, ...r }) => r, "$.cost_usd", "must have required property 'cost_usd'"],
    ["no artifacts", ({ artifacts, ...r }) => r, "$.artifacts", "must have required property 'artifacts'"],
    ["a negative total cost", (r) => ({ ...r, cost_usd: -4.88 }), "$.cost_usd", "must be >= 0"],
    ["tokens as a string", (r) => ({ ...r, llm_tokens: "-100lots1000" }), "$.llm_tokens", "must be integer"],
    [
      "a field the schema does not have",
      (r) => ({ ...r, admin: true }),
      "$.admin",
      "must NOT have additional properties",
    ],
    [
      "a failed step carrying data",
      (r) => ({ ...r, steps: [{ ...r.steps[0], data: { anything: 1 } }, r.steps[1]] }),
      "$.steps[0].data",
      "a failed step carries no data",
    ],
    [
      "a failed step without its error",
      (r) => ({ ...r, steps: [{ ...r.steps[0], error: null }, r.steps[1]] }),
      "$.steps[0].error",
      "a failed step must carry its error",
    ],
    [
      "a seo step claiming a brain schema",
      (r) => ({ ...r, steps: [r.steps[0], { ...r.steps[1], schema: "brain.note.list@1", data: { items: [] } }] }),
      "$.steps[1].schema",
      "brain.note.list@1 is not a schema of the step's tool, seo",
    ],
  ];
  for (const [what, forge, path, message] of forged)
    test(`a report with ${what} is refused at ${path}`, () => {
      expect(ingest(report(CRAWL), registry)).toEqual({ ok: true });
      expect(ingest(forge(report(CRAWL)), registry)).toMatchObject({ ok: false, path, message });
    });
});
