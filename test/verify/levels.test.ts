/**
 * verify for every tool repo: a tool written outside the kit (Python, from
 * the contract's text) conforms at the contract level, passes --strict (every
 * check proven at the level it claims: the contract), and fails
 * --all-extensions only on the kit extensions it does not claim; a tool that hangs on every call is
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

const verify = (args: string[], cwd = OUTSIDE, timeoutMs = 120_000) =>
  run(binary("verify"), ["--json", ...args], { cwd, timeoutMs });

describe("a tool from outside the kit", () => {
  test("passes at the contract level from its own folder, with its golden cases and fuzzing", async () => {
    const r = await verify(["--golden", "golden", "--fuzz", "10", "./shelf"]);
    const checks = checksOf(r.json);
    expect(ids(checks, "fail")).toEqual([]);
    expect(r.code).toBe(0);
    // What it does not claim is skipped, saying which extension and how to demand it; what it has nothing for says so.
    const plans = ["plans.reapply", "plans.expiry", "plans.checksum"];
    for (const id of ["fs.dry-run", "fs.plan", "net.dry-run", ...plans])
      expect(checks.find((c) => c.id === id)!.note).toBe("the tool has no write command");
    expect(checks.find((c) => c.id === "net.read-only")!.note).toStartWith("no read command declares an upstream");
    const nothingFor = ["fs.dry-run", "fs.plan", "net.dry-run", "net.read-only", ...plans];
    for (const c of checks.filter((x) => x.status === "skip" && !nothingFor.includes(x.id))) {
      expect(c.title).toStartWith("kit extension ");
      // --version is the kit's addition: only a tool that claims it is held to it, whatever the level.
      expect(c.note).toContain(
        c.id === "introspection.version" ? "checked only where claimed" : "--all-extensions demands it",
      );
    }
    // Every check says what it enforces.
    for (const c of checks) expect(c.title).toMatch(/^(contract §|kit extension |golden cases)/);
    expect(ids(checks, "pass")).toEqual(
      expect.arrayContaining([
        "describe.shape",
        "describe.contract-version",
        "introspection.help",
        "introspection.skill",
        "errors.unknown-flag",
        "errors.enum",
        "lists.bounded",
        "lists.truncation",
        "golden",
        "fuzz",
      ]),
    );
  }, 150_000);

  test("fails --all-extensions only on the kit extensions it does not claim", async () => {
    const r = await verify(["--all-extensions", "--golden", "golden", "./shelf"]);
    expect(r.code).toBe(3);
    const failing = checksOf(r.json).filter((c) => c.status === "fail");
    expect(failing.length).toBeGreaterThan(0);
    for (const c of failing)
      expect({ id: c.id, title: c.title.split(":")[0] }).toEqual({
        id: c.id,
        title: expect.stringMatching(/^kit extension /),
      });
  }, 150_000);
});

describe("a tool that hangs", () => {
  test("on every call but --describe: judged in well under a minute, no-hang failed", async () => {
    const dir = tmp("hang-");
    writeFileSync(join(dir, "describe.json"), (await run(join(OUTSIDE, "shelf"), ["--describe"])).stdout);
    writeFileSync(join(dir, "spec.yaml"), readFileSync(join(OUTSIDE, "spec.yaml")));
    const tool = join(dir, "hangs");
    writeFileSync(
      tool,
      `#!/bin/sh\nif [ "$1" = --describe ]; then exec cat "${dir}/describe.json"; fi\nexec sleep 1000\n`,
    );
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
    writeFileSync(
      broken,
      readFileSync(join(OUTSIDE, "shelf"), "utf8").replace(`"no-input": False, "wait": False,`, `"no-input": False,`),
    );
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

describe("no false failures, and nothing silently skipped", () => {
  test("a repository whose spec.yaml says `tool:` (not `name:`) is found by its contract_version: spec.yaml and SKILL.md are read from it", async () => {
    const dir = tmp("tool-key-");
    for (const f of ["shelf", "SKILL.md"]) copyFileSync(join(OUTSIDE, f), join(dir, f));
    chmodSync(join(dir, "shelf"), 0o755);
    writeFileSync(join(dir, "spec.yaml"), "tool: shelf\ncontract_version: 0\n");
    const r = await verify(["--no-golden", "./shelf"], dir);
    const checks = checksOf(r.json);
    expect(ids(checks, "fail")).toEqual([]);
    expect(
      checks.filter((c) => ["describe.contract-version", "introspection.skill"].includes(c.id)).map((c) => c.status),
    ).toEqual(["pass", "pass"]);
  }, 120_000);

  test("--strict, claiming no extension: the contract's checks proven on its own data (no golden cases), the kit's waived; it passes", async () => {
    const r = await verify(["--strict", "--no-golden", "./shelf"]);
    const checks = checksOf(r.json);
    // lists.cursor is the kit's extension cursor, which shelf does not claim: waived, asserted below.
    const lists = checks.filter(
      (c) => (c.id.startsWith("lists.") && c.id !== "lists.cursor") || c.id === "fs.read-only",
    );
    expect(lists.filter((c) => c.status === "skip")).toEqual([]);
    expect(ids(lists, "pass")).toEqual(
      expect.arrayContaining(["lists.bounded", "lists.truncation", "lists.limit-zero", "fs.read-only"]),
    );
    expect(ids(checks, "fail")).toEqual([]);
    expect(r.code).toBe(0);
    // shelf pages with --limit only: the extension cursor is not its level, and --strict does not demand it.
    expect(checks.find((c) => c.id === "lists.cursor")!.note).toContain("--all-extensions demands it");
  }, 120_000);

  test("--strict --all-extensions with no golden cases: the cursor extension it does not claim fails, saying why", async () => {
    const r = await verify(["--strict", "--all-extensions", "--no-golden", "./shelf"]);
    const cursor = checksOf(r.json).find((c) => c.id === "lists.cursor")! as Check & { evidence: { what: string }[] };
    expect(cursor.status).toBe("fail");
    expect(cursor.evidence.map((e) => e.what)).toContainEqual(expect.stringContaining("next_cursor"));
  }, 120_000);

  test("a spec.yaml in the current folder that is not YAML is said to be invalid, not taken for another tool's", async () => {
    const dir = tmp("bad-spec-");
    copyFileSync(join(OUTSIDE, "shelf"), join(dir, "shelf"));
    chmodSync(join(dir, "shelf"), 0o755);
    writeFileSync(join(dir, "spec.yaml"), "name: shelf\npurpose: books: a shelf of them\ncontract_version: 0\n");
    const r = await verify(["--no-golden", "./shelf"], dir);
    const spec = checksOf(r.json).find((c) => c.id === "describe.contract-version")! as Check & {
      evidence: { what: string }[];
    };
    expect(spec.status).toBe("fail");
    expect(spec.evidence[0]!.what).toContain("the current folder's spec.yaml is not valid YAML");
    expect(spec.evidence[0]!.what).not.toContain("the current folder is not its repository");
  }, 120_000);
});

describe("a baseline that names what is not there", () => {
  test("an unknown check id is a usage error; a tool not verified is reported; a listed check that was skipped is stale", async () => {
    const dir = tmp("baseline-names-");
    const misspelt = join(dir, "misspelt.json");
    writeFileSync(misspelt, JSON.stringify({ shelf: ["flags.univeral"] }));
    const bad = await verify(["--no-golden", "--baseline", misspelt, "./shelf"]);
    expect([bad.code, bad.json.error.code]).toEqual([2, "USAGE"]);
    expect(bad.json.error.message).toContain("flags.univeral");

    const skipped = join(dir, "skipped.json");
    writeFileSync(skipped, JSON.stringify({ shelf: ["flags.toon"], sheIf: ["golden"] }));
    const r = await verify(["--no-golden", "--baseline", skipped, "./shelf"]);
    expect(r.code).toBe(3);
    const toon = checksOf(r.json).find((c) => c.id === "flags.toon")! as Check & { evidence: { what: string }[] };
    expect(toon.status).toBe("fail");
    expect(toon.evidence[0]!.what).toContain("stale baseline");
    expect(r.json.error.detail.summary.baseline_unknown_tools).toEqual(["sheIf"]);
  }, 120_000);
});

describe("check titles", () => {
  test("every check says truthfully what it enforces: a contract section, a kit extension, or the golden cases", async () => {
    const { CHECKS, titleOf } = await import("../../verify/base/report.ts");
    for (const [id, { level }] of Object.entries(CHECKS)) {
      const title = titleOf(id as keyof typeof CHECKS);
      if ("contract" in level) expect(title).toMatch(/^contract §\d/);
      else if ("extension" in level) expect(title).toStartWith(`kit extension ${level.extension}: `);
      else expect(title).toStartWith("golden cases: ");
    }
    // The describe-schema rules once reported under contract §4 are the extension's own check now.
    expect(titleOf("errors.declared")).toStartWith("kit extension describe-schema");
  });
});
