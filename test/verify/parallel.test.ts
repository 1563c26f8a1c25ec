/**
 * verify's runs in parallel: a bounded pool where fuzzed runs wait for the
 * probes, and a verdict that does not depend on how many runs are in flight
 * (--concurrency 1 runs one at a time, in the order verify always used).
 */
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { beforeAll, describe, expect, test } from "bun:test";
import { Pool } from "../../verify/base/pool.ts";
import { buildCorpus, type Corpus } from "../fixtures/nonconforming/corpus.ts";
import { binary, root, run } from "../helpers/bin.ts";

describe("the pool", () => {
  test("never runs more than its size, and gives a free slot to a waiting probe before a background run", async () => {
    const pool = new Pool(2);
    const order: string[] = [];
    let inFlight = 0;
    let most = 0;
    const job = (name: string, ms: number) => async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      order.push(name);
      await Bun.sleep(ms);
      inFlight--;
    };
    const all = [
      pool.use(job("probe 1", 30)),
      pool.use(job("probe 2", 30)),
      pool.use(job("fuzz 1", 5), true),
      pool.use(job("fuzz 2", 5), true),
      pool.use(job("probe 3", 5)),
      pool.use(job("probe 4", 5)),
    ];
    await Promise.all(all);
    expect(most).toBe(2);
    expect(order).toEqual(["probe 1", "probe 2", "probe 3", "probe 4", "fuzz 1", "fuzz 2"]);
  });

  test("a pool of one runs background work in the order it was asked for", async () => {
    const pool = new Pool(1);
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((n) => pool.use(async () => void order.push(n), true)));
    expect(order).toEqual([1, 2, 3, 4]);
  });
});

describe("verify --concurrency", () => {
  let corpus: Corpus;
  beforeAll(async () => {
    corpus = await buildCorpus(["fuzz-crash"]);
  }, SLOW_HOOK);

  test("a crash under fuzzing is caught with the same shrunk argv one run at a time and many at once", async () => {
    const judged = async (extra: string[]) => {
      const r = await run(
        binary("verify"),
        ["--json", "--no-golden", "--fuzz", "40", "--seed", "7", ...extra, corpus.binary("fuzz-crash")],
        { cwd: root, timeoutMs: 170_000 },
      );
      expect(r.code).toBe(3);
      const tool = r.json.error.detail.tools[0];
      const fuzz = tool.checks.find((c: { id: string }) => c.id === "fuzz");
      return {
        fuzz,
        failing: tool.checks.filter((c: { status: string }) => c.status === "fail").map((c: { id: string }) => c.id),
      };
    };
    const [one, many] = await Promise.all([judged(["--concurrency", "1"]), judged(["--concurrency", "4"])]);
    expect(one.failing).toEqual(["fuzz"]);
    expect(many.failing).toEqual(["fuzz"]);
    expect(many.fuzz.evidence[0].argv).toEqual(one.fuzz.evidence[0].argv);
    expect(many.fuzz.evidence[0].what).toEqual(one.fuzz.evidence[0].what);
  });

  test("VERIFY_CONCURRENCY that is not an integer >= 1 is a usage error saying what is allowed", async () => {
    const r = await run(binary("verify"), ["--json", binary("verify")], { env: { VERIFY_CONCURRENCY: "lots" } });
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe("USAGE");
    expect(r.json.error.message).toContain("VERIFY_CONCURRENCY");
    expect(r.json.error.allowed).toEqual({ min: 1 });
    expect(r.json.error.got).toBe("lots");
  });
});
