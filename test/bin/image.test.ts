/**
 * The µVM image as a platform would ship it: dist/image copied to a fresh
 * folder (no repository beside it, an empty HOME, a PATH without the repo),
 * the multicall binary started under each tool's name; and a tool binary
 * alone in an empty folder, verified.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, dist, root, run } from "../helpers/bin.ts";
import { toolNames } from "../../scripts/build.ts";
import { gateKeys } from "../helpers/mutation.ts";

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const PATH = "/usr/bin:/bin";

/** verify's report, by tool: each check's status. */
function statuses(out: any): Record<string, Record<string, string>> {
  const report = out.data ?? out.error.detail;
  return Object.fromEntries(
    report.tools.map((t: any) => [t.tool, Object.fromEntries(t.checks.map((c: any) => [c.id, c.status]))]),
  );
}
const notPassing = (s: Record<string, string>) =>
  Object.entries(s)
    .filter(([, v]) => v !== "pass")
    .map(([k, v]) => `${k}:${v}`);

describe("the image folder, copied elsewhere", () => {
  const image = tmp("image-");
  cpSync(join(dist, "image"), image, { recursive: true, verbatimSymlinks: true });
  const bin = join(image, "bin");

  test("holds one binary and a link to it per tool", () => {
    const entries = readdirSync(bin).sort();
    expect(entries).toEqual([...toolNames(), "fleet", "verify"].sort());
    for (const name of [...toolNames(), "verify"]) expect(readlinkSync(join(bin, name))).toBe("fleet");
  });

  test("runs the example-site pipeline through its links: crawl → extract → audit → score → plan → gate review → apply (SQLite ledger)", async () => {
    const work = tmp("image-work-");
    const site = join(work, "site");
    cpSync(join(root, "examples", "site"), site, { recursive: true });
    const keys = gateKeys();
    const policy = join(work, "policy.json");
    const actions = Object.fromEntries(
      [
        "set-lang",
        "add-viewport",
        "add-canonical",
        "remove-duplicate-canonical",
        "add-meta-description",
        "fix-broken-link",
      ].map((a) => [`seo.${a}`, { auto_approve: true, max_write_bytes: 4000 }]),
    );
    writeFileSync(
      policy,
      JSON.stringify({
        version: "img-1",
        max_items: 100,
        actions,
        tools: { seo: { fleet: true } },
        roots: { seo: ["site"] },
      }),
    );
    const env = {
      PATH,
      AGENT_GATE_PRIVATE_KEY: keys.privateKey,
      AGENT_GATE_PUBLIC_KEY: keys.publicKey,
      AGENT_POLICY_FILE: policy,
    };
    const runDir = join(work, "run");
    const step = async (tool: string, args: string[]) => {
      const r = await run(join(bin, tool), [...args, "--json"], { env, cwd: work, timeoutMs: 60_000 });
      expect({ step: `${tool} ${args[0]}`, exit: r.code, error: r.json.error }).toEqual({
        step: `${tool} ${args[0]}`,
        exit: 0,
        error: null,
      });
      return r.json.data;
    };
    await step("seo", ["crawl", "--dir", site, "--base-url", "https://harbour.example", "--run-dir", runDir]);
    await step("seo", ["extract", "--run-dir", runDir]);
    await step("seo", ["audit", "--run-dir", runDir]);
    const score = await step("seo", ["score", "--run-dir", runDir]);
    expect(score.score).toBeGreaterThan(0);
    const plan = await step("seo", ["plan", "--run-dir", runDir]);
    expect(plan.items.length).toBeGreaterThan(0);
    await step("gate", ["review", "--plan", runDir]);
    const applied = await step("seo", ["apply", "--plan", runDir]);
    expect(applied.executed).toBe(plan.items.length);
    expect(readdirSync(runDir)).toContain("ledger.sqlite");
  }, 120_000);

  test("the multicall answers `fleet <tool>` too, and an unknown tool with the valid ones", async () => {
    const r = await run(join(bin, "fleet"), ["seo", "audit", "--severity", "urgent"], { env: { PATH } });
    expect([r.code, r.json.tool, r.json.error.code]).toEqual([2, "seo", "INVALID_ENUM"]);
    const bad = await run(join(bin, "fleet"), ["nope"], { env: { PATH } });
    expect([bad.code, bad.json.error.code, bad.json.error.allowed]).toEqual([
      2,
      "UNKNOWN_COMMAND",
      [...toolNames(), "verify"],
    ]);
  });

  test("a tool prints its own SKILL.md and spec.yaml, as --describe lists them", async () => {
    const doc = JSON.parse((await run(join(bin, "seo"), ["--describe"], { env: { PATH } })).stdout);
    expect(doc.documents).toEqual({ "SKILL.md": "seo --skill", "spec.yaml": "seo --spec" });
    const skill = await run(join(bin, "seo"), ["--skill"], { env: { PATH } });
    expect(skill.stdout).toContain("### `seo audit`");
    const spec = await run(join(bin, "seo"), ["--spec"], { env: { PATH } });
    expect(spec.stdout).toContain("contract_version: 0");
  });

  // seo is verified whole as a separate binary (test/verify/cli.test.ts) and alone (below); through its link it runs
  // the pipeline above. brain's whole verify is this one.
  test("verify over the image's tool links passes with golden cases, as over the separate binaries", async () => {
    const r = await run(
      join(bin, "verify"),
      ["--golden", join(root, "test", "golden"), ...["brain", "gate"].map((t) => join(bin, t)), "--json"],
      { env: { PATH }, cwd: root, timeoutMs: 120_000 },
    );
    expect(r.code).toBe(0);
    for (const [tool, s] of Object.entries(statuses(r.json)))
      expect({ tool, failing: notPassing(s).filter((x) => x.endsWith(":fail")) }).toEqual({ tool, failing: [] });
  }, 150_000);
});

/** seo's only upstream (the LLM endpoint) is a read's, synthesize: no write's dry run could send it anything. */
const NO_UPSTREAM_WRITE = "net.dry-run:skip";
/**
 * seo's plan example plans over an audited run dir, which only a crawl of a site makes: alone in a folder,
 * verify cannot make a plan of its own to apply, so fs.plan and the §8 probes are not proven (skipped, saying so).
 */
const NO_PLAN_ALONE = ["fs.plan:skip", "plans.checksum:skip", "plans.expiry:skip", "plans.reapply:skip"];

describe("a tool binary alone in an empty folder", () => {
  test("seo passes verify with --gate; nothing is skipped but the checks seo gives nothing to alone", async () => {
    const alone = tmp("alone-");
    copyFileSync(binary("seo"), join(alone, "seo"));
    const r = await run(
      binary("verify"),
      ["--golden", join(root, "test", "golden"), "--fuzz", "2", "--gate", binary("gate"), join(alone, "seo"), "--json"],
      // About 20 s on an idle machine; beside the rest of the suite on two cores it has taken over 90.
      { env: { PATH }, cwd: root, timeoutMs: 400_000 },
    );
    expect(r.code).toBe(0);
    expect(notPassing(statuses(r.json).seo!).sort()).toEqual([NO_UPSTREAM_WRITE, ...NO_PLAN_ALONE].sort());
    const checks = r.json.data.tools[0].checks as any[];
    expect(checks.find((c) => c.id === "plans.reapply").note).toContain("plan's example failed (MISSING_ARTIFACT)");
  }, 450_000);

  test("without --gate, a golden case that drives the gate is skipped, saying how to enable it, and the rest replay", async () => {
    // A small tool (verify itself, alone in its folder) and one case that needs the gate: no gate beside it or on PATH.
    const alone = tmp("alone-");
    copyFileSync(binary("verify"), join(alone, "verify"));
    const golden = join(alone, "golden", "verify");
    mkdirSync(golden, { recursive: true });
    writeFileSync(
      join(golden, "help-after-gate.json"),
      JSON.stringify({
        description: "drives the gate first",
        setup: [{ tool: "gate", argv: ["--describe"] }],
        argv: ["--help"],
      }),
    );
    const r = await run(binary("verify"), ["--golden", join(alone, "golden"), join(alone, "verify"), "--json"], {
      env: { PATH },
      cwd: alone,
      timeoutMs: 120_000,
    });
    const checks = (r.json.data ?? r.json.error.detail).tools[0].checks as any[];
    const siblings = checks.find((c) => c.id === "golden.siblings");
    expect([siblings.status, siblings.note]).toEqual(["skip", expect.stringContaining("pass --gate PATH to run them")]);
    expect(siblings.note).toContain("help-after-gate");
    expect(checks.find((c) => c.id === "golden").status).toBe("pass"); // its --describe snapshot, recorded and held
    expect(checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(r.code).toBe(0);
  }, 150_000);
});
