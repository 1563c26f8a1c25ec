/**
 * Tools that lie: envelopes with wrong types, negative and huge numbers,
 * foreign schema ids and broken shapes (test/helpers/lying-envelopes.ts),
 * through the compiled `job execute` → `receive`: no run is INTERNAL and
 * every stored report is valid against harness.job.execute@1.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileTool } from "../../src/kit/compile/index.ts";
import harness from "../../tools/harness/tool.ts";
import { baseEnv } from "../helpers/bin.ts";
import { misbehavingFleet, receiverProcess, storedEvents } from "../helpers/harness.ts";
import { envelope, random } from "../helpers/lying-envelopes.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const SECRET = "fuzz-secret-0123456789abcdef";

const ajv = new Ajv2020({ strict: false, allErrors: true });
const reportSchema = compileTool(harness).describe.commands.find((c) => c.name === "job execute")!.output_schema;
const validReport = ajv.compile(reportSchema);

describe("through job execute and receive", () => {
  let dir: string;
  let receiver: Awaited<ReturnType<typeof receiverProcess>>;
  let store: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "harness-fuzz-"));
    store = join(dir, "receiver.sqlite");
    receiver = await receiverProcess(["--for", "600", "--store", store], { AGENT_HARNESS_SECRET: SECRET });
  }, SLOW_HOOK);
  afterAll(() => receiver?.stop(), SLOW_HOOK);

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
      writeFileSync(
        join(dir, `job-${j}.json`),
        JSON.stringify({ id: `fuzz-${j}`, run_dir: `run-${j}`, steps, delivery: { url: `${receiver.url}/reports` } }),
      );
      const p = Bun.spawn([bin, "job", "execute", "--job", join(dir, `job-${j}.json`), "--json"], {
        env: baseEnv({ AGENT_HARNESS_SECRET: SECRET }),
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
      const r = JSON.parse(out);
      expect([code, r.ok, r.data.delivered.status]).toEqual([0, true, 200]);
      expect(r.data.steps.map((s: any) => s.ok)).toEqual(expected);
      // Each failed step says why: the tool's own error, an envelope that breaks the contract (and where), or no envelope at all.
      for (const s of r.data.steps.filter((x: any) => !x.ok))
        expect(s.error.message).toMatch(
          /^(down|m$|the step's envelope breaks the contract at [a-z_.]+: |the step printed no envelope: stdout was not one envelope)/,
        );
    }
    const events = storedEvents(store);
    expect(events.map((e) => e.job_id)).toEqual([0, 1, 2, 3, 4, 5].map((j) => `fuzz-${j}`));
    for (const e of events)
      if (!validReport(e.body)) throw new Error(`${e.job_id}: ${JSON.stringify(validReport.errors)}`);
  }, 120_000);
});
