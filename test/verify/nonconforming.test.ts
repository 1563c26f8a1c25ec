/**
 * Proves the verifier: each tool in the corpus breaks exactly one rule and
 * must fail exactly the check that rule belongs to: a contract rule at the
 * default level and under --strict, a kit extension's rule only under
 * --strict (the corpus's tool claims no extension). The conforming twin must
 * pass every check at both levels, golden cases and fuzzing included.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCorpus, buildOutsideCorpus, type Corpus } from "../fixtures/nonconforming/corpus.ts";
import { DEFECTS, type Defect } from "../fixtures/nonconforming/defects.ts";
import { binary, root, run } from "../helpers/bin.ts";

const GOLDEN = join(root, "test", "fixtures", "nonconforming", "golden");
const FAKE = DEFECTS.filter((d) => !d.tool);
const CRATE = DEFECTS.filter((d) => d.tool === "crate");
const GROUPS: Record<string, { args: string[]; defects: Defect[] }> = {
  plain: { args: ["--no-golden"], defects: FAKE.filter((d) => !d.needs) },
  golden: { args: ["--golden", GOLDEN], defects: FAKE.filter((d) => d.needs === "golden") },
  fuzz: { args: ["--no-golden", "--fuzz", "40", "--seed", "7"], defects: FAKE.filter((d) => d.needs === "fuzz") },
};
/** crate (Python, outside the kit) at the contract level it targets: each defect with and without golden cases. */
const CRATE_MODES = { "without golden cases": ["--no-golden"], "with golden cases": ["--golden", GOLDEN] };
const CRATE_BATCH = 5;

interface ToolReport {
  binary: string;
  ok: boolean;
  duration_ms: number;
  checks: { id: string; status: string; note: string | null; evidence: { what: string; argv?: string[] }[] }[];
}

/** The failing checks' ids; a check failed beyond the expected one is printed with its evidence, to say why. */
function failing(report: ToolReport, expected: readonly string[]): string[] {
  const failed = report.checks.filter((c) => c.status === "fail");
  for (const c of failed.filter((x) => !expected.includes(x.id)))
    console.log(`${report.binary}: ${c.id} failed too: ${JSON.stringify(c.evidence.slice(0, 2))}`);
  return failed.map((c) => c.id);
}

let corpus: Corpus;
let outside: Corpus;
const LEVELS = { contract: [] as string[], strict: ["--strict"] };
type LevelName = keyof typeof LEVELS;
const reports = new Map<string, ToolReport>();
const key = (level: LevelName, id: string) => `${level} ${id}`;

async function verify(args: string[], binaries: string[]): Promise<{ code: number; tools: ToolReport[] }> {
  // verify's own time limit a run (10 s): a shorter one killed tools that had answered but not yet exited when
  // the machine was busy, the corpus's groups running side by side.
  const r = await run(binary("verify"), ["--json", ...args, ...binaries], {
    timeoutMs: 170_000,
    cwd: root,
  });
  const body = r.json.data ?? r.json.error.detail;
  return { code: r.code, tools: body.tools };
}

beforeAll(async () => {
  corpus = await buildCorpus([...FAKE.map((d) => d.id), "small-max-page", "hangs-then-slow-lists"]);
  outside = buildOutsideCorpus([...CRATE.map((d) => d.id), "twin-small-catalogue"]);
  // crate's in batches of five: each verify run stays well inside its time limit on a busy machine.
  for (const [mode, args] of Object.entries(CRATE_MODES))
    for (let at = 0; at < CRATE.length; at += CRATE_BATCH) {
      const batch = CRATE.slice(at, at + CRATE_BATCH);
      const { tools } = await verify(
        args,
        batch.map((d) => outside.binary(d.id)),
      );
      for (const [i, d] of batch.entries()) {
        reports.set(`${mode} ${d.id}`, tools[i]!);
        console.log(
          `verify judged crate ${d.id} (${mode}) in ${(tools[i]!.duration_ms / 1000).toFixed(1)} s, beside ${batch.length - 1} other(s)`,
        );
      }
    }
  for (const [level, extra] of Object.entries(LEVELS) as [LevelName, string[]][])
    await Promise.all(
      Object.values(GROUPS).map(async ({ args, defects }) => {
        const { tools } = await verify(
          [...extra, ...args],
          defects.map((d) => corpus.binary(d.id)),
        );
        for (const [i, d] of defects.entries()) reports.set(key(level, d.id), tools[i]!);
      }),
    );
}, 900_000);

describe("the nonconforming corpus", () => {
  test("has at least 25 tools, each with a distinct defect", () => {
    expect(DEFECTS.length).toBeGreaterThanOrEqual(25);
    expect(new Set(DEFECTS.map((d) => d.id)).size).toBe(DEFECTS.length);
  });

  for (const d of CRATE)
    for (const mode of Object.keys(CRATE_MODES))
      test(`${d.id} (crate, Python outside the kit): ${d.what} → fails ${d.check} and nothing else (${mode})`, () => {
        const report = reports.get(`${mode} ${d.id}`)!;
        expect(report.binary).toBe(outside.binary(d.id));
        expect(failing(report, [d.check])).toEqual([d.check]);
        expect(report.ok).toBe(false);
      });

  for (const [mode, args] of Object.entries(CRATE_MODES))
    test(`crate's conforming twin passes every check at the contract level, its list and side-effect checks proven (${mode})`, async () => {
      const { code, tools } = await verify(args, [outside.binary("none")]);
      const checks = tools[0]!.checks;
      expect(checks.filter((c) => c.status === "fail")).toEqual([]);
      for (const id of [
        "lists.bounded",
        "lists.truncation",
        "lists.cursor",
        "fs.read-only",
        "fs.dry-run",
        "net.read-only",
        "net.dry-run",
        "noninteractive.tty",
        "errors.range",
        "errors.enum",
      ])
        expect({ id, status: checks.find((c) => c.id === id)!.status }).toEqual({ id, status: "pass" });
      expect(code).toBe(0);
    }, 120_000);

  test("a list only crate's own plan → apply can fill: its default bound is proven on the words verify had it add (no golden cases)", async () => {
    // twin-small-catalogue conforms; its catalogue (6 items) fits one default page, so item list cannot show a bound.
    const { code, tools } = await verify(["--no-golden"], [outside.binary("twin-small-catalogue")]);
    const bounded = tools[0]!.checks.find((c) => c.id === "lists.bounded")!;
    expect(bounded.status).toBe("pass");
    expect(bounded.note).toContain("'word list': data made by its own plan → apply examples");
    expect(tools[0]!.checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);

  for (const d of FAKE)
    for (const level of Object.keys(LEVELS) as LevelName[]) {
      const caught = !d.extension || level === "strict";
      test(`${d.id}: ${d.what} → ${caught ? `fails ${d.check} and nothing else` : "passes: an extension the tool does not claim"} (${level})`, () => {
        const report = reports.get(key(level, d.id))!;
        expect(report.binary).toBe(corpus.binary(d.id));
        expect(failing(report, caught ? [d.check] : [])).toEqual(caught ? [d.check] : []);
        expect(report.ok).toBe(!caught);
      });
    }

  test("a list longer than its largest page pages correctly: the cursor walk is held to the total, not to one capped page", async () => {
    // Its own golden case (the corpus's record pages of 10): recorded on this run, then replayed and walked.
    const golden = mkdtempSync(join(tmpdir(), "golden-small-page-"));
    mkdirSync(join(golden, "fake"));
    writeFileSync(
      join(golden, "fake", "item-list.json"),
      JSON.stringify({ description: "every item, paged", argv: ["item", "list"] }),
    );
    const { code, tools } = await verify(["--strict", "--golden", golden], [corpus.binary("small-max-page")]);
    const cursor = tools[0]!.checks.find((c) => c.id === "lists.cursor")!;
    expect(cursor.status).toBe("pass");
    expect(tools[0]!.checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);

  test("a run verify cut short, once the tool had hung twice, is no evidence: a slow list is not a failed one (strict)", async () => {
    // One run at a time: the two hangs come before the lists, and every list run (800 ms) outlasts the short limit.
    const { tools } = await verify(
      ["--strict", "--no-golden", "--concurrency", "1", "--timeout", "3000"],
      [corpus.binary("hangs-then-slow-lists")],
    );
    const checks = tools[0]!.checks;
    expect(failing(tools[0]!, ["noninteractive.no-hang"])).toEqual(["noninteractive.no-hang"]);
    const cursor = checks.find((c) => c.id === "lists.cursor")!;
    expect(cursor.status).toBe("skip");
    expect(cursor.note).toContain("cut short");
    const hangs = checks.find((c) => c.id === "noninteractive.no-hang")!.evidence;
    expect(hangs.every((e) => e.argv!.includes("item") && e.argv!.includes("get"))).toBe(true);
  }, 120_000);

  for (const [level, extra] of Object.entries(LEVELS))
    test(`the conforming twin passes every check, with golden cases and fuzzing (${level})`, async () => {
      const { code, tools } = await verify(
        [...extra, "--golden", GOLDEN, "--fuzz", "40", "--seed", "7"],
        [corpus.binary("none")],
      );
      expect(tools[0]!.checks.filter((c) => c.status === "fail")).toEqual([]);
      expect(code).toBe(0);
    }, 120_000);
});
