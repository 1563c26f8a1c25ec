/**
 * How the suite spends its time: test files that start a process (a binary,
 * git, a server) against those that run in-process, with their test counts
 * and summed wall time, read from a JUnit report of one `bun test` run.
 *
 *   bun scripts/test-kinds.ts                    runs `bun test` once and reports
 *   bun scripts/test-kinds.ts --from report.xml  reports an earlier run
 *
 * A file is "subprocess" when it, or a test helper it imports (followed
 * transitively), starts a process; otherwise "in-process".
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { startsProcess } from "./test-files.ts";

const ROOT = resolve(import.meta.dir, "..");

interface Tally {
  files: number;
  tests: number;
  seconds: number;
}

function parseReport(xml: string): Map<string, { tests: number; seconds: number }> {
  const byFile = new Map<string, { tests: number; seconds: number }>();
  for (const m of xml.matchAll(/<testcase\b[^>]*>/g)) {
    const tag = m[0];
    const file = /file="([^"]+)"/.exec(tag)?.[1];
    const time = Number(/time="([^"]+)"/.exec(tag)?.[1] ?? 0);
    if (!file) continue;
    const entry = byFile.get(file) ?? { tests: 0, seconds: 0 };
    entry.tests += 1;
    entry.seconds += time;
    byFile.set(file, entry);
  }
  return byFile;
}

function report(xml: string): void {
  const kinds: Record<"in-process" | "subprocess", Tally> = {
    "in-process": { files: 0, tests: 0, seconds: 0 },
    subprocess: { files: 0, tests: 0, seconds: 0 },
  };
  for (const [file, { tests, seconds }] of parseReport(xml)) {
    const kind = startsProcess(resolve(ROOT, file)) ? "subprocess" : "in-process";
    kinds[kind].files += 1;
    kinds[kind].tests += tests;
    kinds[kind].seconds += seconds;
  }
  console.log("kind        files  tests  test time (s, summed)");
  for (const [kind, t] of Object.entries(kinds))
    console.log(
      `${kind.padEnd(11)} ${String(t.files).padStart(5)}  ${String(t.tests).padStart(5)}  ${t.seconds.toFixed(1)}`,
    );
}

const from = process.argv.indexOf("--from");
if (from !== -1) report(readFileSync(process.argv[from + 1]!, "utf8"));
else {
  const out = join(tmpdir(), `test-kinds-${process.pid}.xml`);
  const started = performance.now();
  const run = Bun.spawnSync(
    [process.execPath, "test", "--timeout", "120000", "--reporter=junit", `--reporter-outfile=${out}`],
    {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  console.log(`bun test: exit ${run.exitCode}, ${((performance.now() - started) / 1000).toFixed(0)} s wall`);
  report(readFileSync(out, "utf8"));
}
