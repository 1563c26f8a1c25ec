/**
 * The canary sweep (test/helpers/canary-sweep.ts), run once and read by
 * every assertion here: over every command of every tool, through every door
 * and in every file written, no canary secret in any of its eight encodings
 * leaves beyond the mask (not a run of 16 of its characters, in any form,
 * case-folded and with line breaks taken out). docs/trust.md lists the places.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { binary, run } from "../helpers/bin.ts";
import { ENCODINGS } from "../helpers/canaries.ts";
import { runSweep, type Sweep } from "../helpers/canary-sweep.ts";
import { leakFolded } from "../helpers/leak.ts";

/** The redactor's unit: a slice this long of a known secret is masked wherever it is. */
const SLICE = 16;
let sweep: Sweep;

beforeAll(async () => {
  sweep = await runSweep();
  // To read what left, place by place: CANARY_SWEEP_DUMP=/path/sweep.json.
  if (process.env.CANARY_SWEEP_DUMP)
    await Bun.write(process.env.CANARY_SWEEP_DUMP, JSON.stringify(sweep.places, null, 1));
}, 600_000);

/** Each place that gives away 16 or more characters of a canary, with how many and of which. */
const leaksAt = (door: string) =>
  sweep.places
    .filter((p) => p.door === door)
    .flatMap((p) =>
      Object.entries(sweep.canaries)
        .map(([name, secret]) => ({ place: p.what, canary: name, run: leakFolded(secret, p.text) }))
        .filter((l) => l.run >= SLICE),
    );

describe("the canary sweep: eight encodings, every door, every file", () => {
  test("it swept every command of every tool, and each of the eight encodings", async () => {
    const declared = new Set<string>();
    for (const tool of ["seo", "brain", "gate", "harness"]) {
      const doc = (await run(binary(tool), ["--describe"])).json;
      for (const c of doc.commands) declared.add(`${tool} ${c.name}`);
    }
    expect([...declared].filter((c) => !sweep.commands.has(c))).toEqual([]);
    expect(Object.keys(ENCODINGS)).toHaveLength(8);
  });

  test("the canaries reached the outputs: the mask is there to be seen", () => {
    const masked = sweep.places.filter((p) => p.text.includes("[REDACTED]"));
    expect(masked.length).toBeGreaterThan(100);
    for (const door of ["command line", "stdin params", "MCP", "harness job", "file"])
      expect({ door, masked: masked.some((p) => p.door === door) }).toEqual({ door, masked: true });
  });

  for (const door of ["command line", "stdin params", "MCP", "harness job", "receiver"] as const)
    test(`${door}: every answer, stdout and stderr hold no 16-character run of any canary`, () => {
      expect(sweep.places.filter((p) => p.door === door).length).toBeGreaterThan(0);
      expect(leaksAt(door)).toEqual([]);
    });

  test("every file written (run dirs, plan.json, ledgers, reports, history pages, the receiver's store) holds none", () => {
    const files = sweep.places.filter((p) => p.door === "file").map((p) => p.what);
    for (const expected of [
      /plan\.json$/,
      /ledger\.sqlite$/,
      /report\.json$/,
      /history\.html$/,
      /receiver\.sqlite$/,
      /^stored jobs\//,
      /\.ndjson$/,
    ])
      expect({ expected: String(expected), found: files.some((f) => expected.test(f)) }).toEqual({
        expected: String(expected),
        found: true,
      });
    // The fixtures the sweep wrote itself carry the canaries on purpose: the site's pages and the job files.
    const own = /^(site\/|job\.json$|leaky-job\.json$)/;
    expect(leaksAt("file").filter((l) => !own.test(l.place))).toEqual([]);
  });
});
