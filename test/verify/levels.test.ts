/**
 * verify for every tool repo: a tool written outside the kit (Python, from
 * the contract's text) conforms at the contract level and fails --strict only
 * on the kit extensions it does not claim; a tool that hangs on every call is
 * judged within a minute; an expected-failures baseline passes a listed
 * failure and fails once that failure is fixed (stale).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, root, run } from "../helpers/bin.ts";

const OUTSIDE = join(root, "test", "fixtures", "outside-tool");
const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

interface Check {
  id: string;
  title: string;
  status: string;
  note: string | null;
}
const checksOf = (json: any): Check[] => (json.data ?? json.error.detail).tools[0].checks;
const ids = (checks: Check[], status: string) => checks.filter((c) => c.status === status).map((c) => c.id);

const verify = (args: string[], cwd = OUTSIDE, timeoutMs = 120_000) => run(binary("verify"), ["--json", ...args], { cwd, timeoutMs });

describe("a tool from outside the kit", () => {
  test("passes at the contract level from its own folder, with its golden cases and fuzzing", async () => {
    const r = await verify(["--golden", "golden", "--fuzz", "10", "./shelf"]);
    const checks = checksOf(r.json);
    expect(ids(checks, "fail")).toEqual([]);
    expect(r.code).toBe(0);
    // What it does not claim is skipped, saying which extension and how to demand it.
    for (const c of checks.filter((x) => x.status === "skip")) {
      expect(c.title).toStartWith("kit extension ");
      expect(c.note).toContain("--strict demands it");
    }
    // Every check says what it enforces.
    for (const c of checks) expect(c.title).toMatch(/^(contract §|kit extension |golden cases)/);
    expect(ids(checks, "pass")).toEqual(expect.arrayContaining(["describe.shape", "describe.contract-version", "introspection.help", "introspection.skill", "errors.unknown-flag", "errors.enum", "lists.bounded", "lists.truncation", "golden", "fuzz"]));
  }, 150_000);

  test("fails --strict only on the kit extensions it does not claim", async () => {
    const r = await verify(["--strict", "--golden", "golden", "./shelf"]);
    expect(r.code).toBe(3);
    const failing = checksOf(r.json).filter((c) => c.status === "fail");
    expect(failing.length).toBeGreaterThan(0);
    for (const c of failing) expect({ id: c.id, title: c.title.split(":")[0] }).toEqual({ id: c.id, title: expect.stringMatching(/^kit extension /) });
  }, 150_000);
});

describe("a tool that hangs", () => {
  test("on every call but --describe: judged in well under a minute, no-hang failed", async () => {
    const dir = tmp("hang-");
    writeFileSync(join(dir, "describe.json"), (await run(join(OUTSIDE, "shelf"), ["--describe"])).stdout);
    writeFileSync(join(dir, "spec.yaml"), readFileSync(join(OUTSIDE, "spec.yaml")));
    const tool = join(dir, "hangs");
    writeFileSync(tool, `#!/bin/sh\nif [ "$1" = --describe ]; then exec cat "${dir}/describe.json"; fi\nexec sleep 1000\n`);
    chmodSync(tool, 0o755);
    const started = performance.now();
    const r = await verify(["--no-golden", tool], dir, 100_000);
    const seconds = (performance.now() - started) / 1000;
    console.log(`verify judged a tool that hangs on every call in ${seconds.toFixed(1)} s`);
    expect(seconds).toBeLessThanOrEqual(90);
    expect(r.code).toBe(3);
    expect(ids(checksOf(r.json), "fail")).toContain("noninteractive.no-hang");
  }, 120_000);
});

describe("an expected-failures baseline", () => {
  test("lets a listed failure pass, and fails as stale once the failure is fixed", async () => {
    const dir = tmp("baseline-");
    // shelf with one real defect: the universal --wait refused.
    const broken = join(dir, "shelf");
    writeFileSync(broken, readFileSync(join(OUTSIDE, "shelf"), "utf8").replace(`"no-input": False, "wait": False,`, `"no-input": False,`));
    chmodSync(broken, 0o755);
    copyFileSync(join(OUTSIDE, "spec.yaml"), join(dir, "spec.yaml"));
    copyFileSync(join(OUTSIDE, "SKILL.md"), join(dir, "SKILL.md"));
    const baseline = join(dir, "baseline.json");
    writeFileSync(baseline, JSON.stringify({ shelf: ["flags.universal"] }));

    const without = await verify(["--no-golden", broken], dir);
    expect([without.code, ids(checksOf(without.json), "fail")]).toEqual([3, ["flags.universal"]]);
    const listed = await verify(["--no-golden", "--baseline", baseline, broken], dir);
    expect(listed.code).toBe(0);
    expect(ids(checksOf(listed.json), "expected-fail")).toEqual(["flags.universal"]);

    const fixed = await verify(["--no-golden", "--baseline", baseline, join(OUTSIDE, "shelf")], OUTSIDE);
    expect(fixed.code).toBe(3);
    const stale = checksOf(fixed.json).find((c) => c.id === "flags.universal")!;
    expect(stale.status).toBe("fail");
    expect(JSON.stringify(fixed.json)).toContain("stale baseline");
  }, 150_000);
});
