/**
 * The harness's result satisfies its own schema (harness.job.execute@1)
 * whatever its steps print: a seeded property test over lying envelopes,
 * checked and folded in-process.
 */
import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import { compileTool } from "../../src/kit/compile/index.ts";
import { envelopeOf } from "../../src/features/harness/envelope.ts";
import { foldJob, type StepRun } from "../../src/features/harness/fold.ts";
import { roundUsd } from "../../src/kit/output/envelope.ts";
import harness from "../../tools/harness/tool.ts";
import { envelope, random } from "../helpers/lying-envelopes.ts";

const validReport = new Ajv2020({ strict: false, allErrors: true }).compile(
  compileTool(harness).describe.commands.find((c) => c.name === "job execute")!.output_schema,
);

describe("the harness's result satisfies its own schema, whatever the steps print", () => {
  test("2,000 random step envelopes, folded 20 to a job: every report is valid, sums are over valid numbers only", () => {
    const rnd = random(20261204);
    for (let job = 0; job < 100; job++) {
      const runs: StepRun[] = [];
      const expected: boolean[] = [];
      for (let i = 0; i < 20; i++) {
        const { value, succeeds } = envelope(rnd);
        const seen = envelopeOf(JSON.stringify(value), "seo");
        runs.push({
          index: i,
          argv: ["seo", "x"],
          exit: succeeds ? 0 : 4,
          durationMs: 1,
          ...("envelope" in seen
            ? { envelope: seen.envelope }
            : { envelope: null, problem: seen.problem, malformed: seen.malformed }),
        });
        expected.push(succeeds);
      }
      const report = foldJob({
        jobId: `j${job}`,
        eventId: `e${job}`,
        runs,
        notRun: 0,
        cancelled: false,
        artifacts: [],
      });
      if (!validReport(report)) throw new Error(`job ${job}: ${JSON.stringify(validReport.errors)}`);
      expect(report.steps.map((s) => s.ok)).toEqual(expected);
      expect(report.cost_usd).toBe(roundUsd(report.steps.reduce((sum, s) => sum + s.cost_usd, 0)));
      for (const s of report.steps) if (!s.ok) expect(s.data).toBeNull();
    }
  });
});
