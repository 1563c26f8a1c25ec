/**
 * verify is never hung by a tool's children, and leaves none running: each
 * run is its own process group, killed whole at the time limit and when the
 * tool exits, and a process that left the group for a session of its own is
 * found by the mark verify puts in the run's environment. The fixtures are
 * crate (Python, outside the kit) hanging or leaving children three ways; every
 * process they start has the corpus folder in its command line, so what is
 * left running is counted from /proc, not guessed.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { buildOutsideCorpus, type Corpus } from "../fixtures/nonconforming/corpus.ts";
import { binary, root, run } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { rounds } from "../helpers/rounds.ts";

let outside: Corpus;
beforeAll(() => {
  outside = buildOutsideCorpus(["hang-ignores-term", "list-leaves-child", "setsid-child"]);
}, SLOW_HOOK);

/** Live processes whose command line names the corpus folder (a zombie's is empty). */
function leftBehind(marker: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p)))
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmdline.includes(marker)) out.push(`${pid}: ${cmdline}`);
    } catch {
      // gone while looking
    }
  return out;
}

describe("a tool whose children would hang verify", () => {
  for (const [defect, what] of [
    ["hang-ignores-term", "ignores SIGTERM and sleeps on every call, a sleeping child holding its stdout"],
    ["list-leaves-child", "exits normally from list commands, leaving a child that holds stdout"],
    ["setsid-child", "exits normally from list commands, leaving a child in a session of its own, its streams let go"],
  ] as const)
    test(
      `${what}: verify ends with noninteractive.no-hang failed and no process left`,
      async () => {
        // The setsid child is forked and exec'd as the tool exits: verify once read it mid-exec (no environment
        // yet) and left it running, 2 runs in 12 on a loaded machine; the soak runs it 20 times.
        for (let round = 0; round < (defect === "setsid-child" ? rounds(1, 20) : 1); round++) {
          const started = performance.now();
          const r = await run(
            binary("verify"),
            ["--json", "--no-golden", "--timeout", "3000", outside.binary(defect)],
            {
              cwd: root,
              timeoutMs: 60_000,
            },
          );
          console.log(`verify judged ${defect} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
          const checks = (r.json.data ?? r.json.error.detail).tools[0].checks as { id: string; status: string }[];
          expect(r.code).toBe(3);
          expect(checks.find((c) => c.id === "noninteractive.no-hang")!.status).toBe("fail");
          expect(leftBehind(outside.root)).toEqual([]);
        }
      },
      rounds(120_000, 1_200_000),
    );
});
