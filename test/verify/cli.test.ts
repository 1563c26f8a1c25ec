/** The verifier's own surface: its envelope, exit codes, JUnit and golden rules, run as the compiled binary. */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, root, run } from "../helpers/bin.ts";

const verify = (args: string[], env: Record<string, string> = {}) =>
  run(binary("verify"), ["--json", ...args], { timeoutMs: 120_000, cwd: root, env });

describe("verify on the fleet", () => {
  test("every tool in dist/ conforms, golden cases replayed with CI set, and the JUnit report says so", async () => {
    const xml = join(mkdtempSync(join(tmpdir(), "junit-")), "report.xml");
    const tools = ["seo", "gate"];
    const r = await verify(["--golden", join(root, "test", "golden"), "--junit", xml, ...tools.map(binary)], {
      CI: "1",
    });
    const reports = (r.json.data ?? r.json.error.detail).tools as {
      tool: string;
      checks: { id: string; status: string }[];
    }[];
    expect(reports.map((t) => t.tool)).toEqual(tools);
    for (const t of reports) {
      expect({ tool: t.tool, failing: t.checks.filter((c) => c.status === "fail") }).toEqual({
        tool: t.tool,
        failing: [],
      });
      expect(t.checks.find((c) => c.id === "golden")?.status).toBe("pass");
    }
    expect(r.code).toBe(0);
    const report = readFileSync(xml, "utf8");
    expect(report).toStartWith("<?xml");
    expect(report.match(/failures="0"/g)?.length).toBe(tools.length);
    expect(report).toContain('name="describe.shape: ');
  }, 120_000);
});

describe("verify obeys the contract it checks", () => {
  test("dist/verify passes dist/verify, with its golden describe snapshot and fuzzing, under CI", async () => {
    const r = await verify(
      ["--golden", join(root, "test", "golden"), "--fuzz", "10", "--seed", "3", binary("verify")],
      { CI: "1" },
    );
    const checks = (r.json.data ?? r.json.error.detail).tools[0].checks as { id: string; status: string }[];
    expect(checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(r.code).toBe(0);
    const doc = JSON.parse((await run(binary("verify"), ["--describe"])).stdout);
    expect(doc.commands.map((c: { name: string; verb: string; tier: number }) => [c.name, c.verb, c.tier])).toEqual([
      ["audit", "audit", 2],
    ]);
  }, 120_000);

  test("a malformed invocation teaches: unknown flag, bad number, no binary, each exit 2", async () => {
    for (const [argv, code, says] of [
      [["audit", "--fuzzz", "3", binary("seo")], "USAGE", "did you mean --fuzz?"],
      [["audit", "--fuzz", "many", binary("seo")], "USAGE", "--fuzz must be an integer"],
      [["audit"], "USAGE", "no tool binary given"],
    ] as const) {
      const r = await run(binary("verify"), [...argv, "--json"], { cwd: root });
      expect([r.code, r.json.error.code]).toEqual([2, code]);
      expect(`${r.json.error.message} ${r.json.error.hint ?? ""}`).toContain(says);
    }
  });
});

/** Golden handling on a small tool: verify judging itself (its golden folder holds its --describe snapshot). */
describe("golden snapshots under CI", () => {
  test("a case without a recorded expectation fails instead of being recorded", async () => {
    const dir = mkdtempSync(join(tmpdir(), "golden-"));
    cpSync(join(root, "test", "golden", "verify", "describe.json"), join(dir, "verify", "describe.json"), {
      recursive: true,
    });
    const unrecorded = join(dir, "verify", "new-case.json");
    const spec = JSON.stringify({ description: "not yet recorded", argv: ["audit", "[CASE_DIR]/none"] });
    writeFileSync(unrecorded, spec);
    const r = await verify(["--golden", dir, binary("verify")], { CI: "true" });
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe("NONCONFORMING");
    const golden = r.json.error.detail.tools[0].checks.find((c: { id: string }) => c.id === "golden");
    expect(golden.status).toBe("fail");
    expect(JSON.stringify(golden.evidence)).toContain("new-case");
    expect(readFileSync(unrecorded, "utf8")).toBe(spec);
  }, 120_000);

  test("a missing --describe snapshot fails under CI", async () => {
    const dir = mkdtempSync(join(tmpdir(), "golden-"));
    const r = await verify(["--golden", dir, binary("verify")], { CI: "1" });
    expect(r.code).toBe(3);
    expect(JSON.stringify(r.json.error.detail)).toContain("no golden snapshot of `verify --describe`");
  }, 120_000);
});

describe("verify's own errors", () => {
  test("an unknown flag is a usage error, exit 2", async () => {
    const r = await verify(["--fuz", "3", binary("seo")]);
    expect(r.code).toBe(2);
    expect(r.json.ok).toBe(false);
    expect(r.json.error.code).toBe("USAGE");
    expect(r.json.error.hint).toContain("--fuzz");
  });

  test("no binaries is a usage error", async () => {
    const r = await verify([]);
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe("USAGE");
  });

  test("a file that is not executable is NOT_EXECUTABLE, exit 2", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "nx-")), "tool");
    writeFileSync(file, "not a program");
    const r = await verify([file]);
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe("NOT_EXECUTABLE");
  });
});
