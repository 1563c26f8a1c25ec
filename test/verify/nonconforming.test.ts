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

interface ToolReport {
  binary: string;
  ok: boolean;
  checks: { id: string; status: string }[];
}

let corpus: Corpus;
let outside: Corpus;
const LEVELS = { contract: [] as string[], strict: ["--strict"] };
type LevelName = keyof typeof LEVELS;
const reports = new Map<string, ToolReport>();
const key = (level: LevelName, id: string) => `${level} ${id}`;

async function verify(args: string[], binaries: string[]): Promise<{ code: number; tools: ToolReport[] }> {
  const r = await run(binary("verify"), ["--json", "--timeout", "3000", ...args, ...binaries], {
    timeoutMs: 170_000,
    cwd: root,
  });
  const body = r.json.data ?? r.json.error.detail;
  return { code: r.code, tools: body.tools };
}

beforeAll(async () => {
  corpus = await buildCorpus([...FAKE.map((d) => d.id), "small-max-page"]);
  outside = buildOutsideCorpus(CRATE.map((d) => d.id));
  for (const [mode, args] of Object.entries(CRATE_MODES)) {
    const { tools } = await verify(
      args,
      CRATE.map((d) => outside.binary(d.id)),
    );
    for (const [i, d] of CRATE.entries()) reports.set(`${mode} ${d.id}`, tools[i]!);
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
}, 300_000);

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
        expect(report.checks.filter((c) => c.status === "fail").map((c) => c.id)).toEqual([d.check]);
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
        "errors.range",
        "errors.enum",
      ])
        expect({ id, status: checks.find((c) => c.id === id)!.status }).toEqual({ id, status: "pass" });
      expect(code).toBe(0);
    }, 120_000);

  for (const d of FAKE)
    for (const level of Object.keys(LEVELS) as LevelName[]) {
      const caught = !d.extension || level === "strict";
      test(`${d.id}: ${d.what} → ${caught ? `fails ${d.check} and nothing else` : "passes: an extension the tool does not claim"} (${level})`, () => {
        const report = reports.get(key(level, d.id))!;
        expect(report.binary).toBe(corpus.binary(d.id));
        expect(report.checks.filter((c) => c.status === "fail").map((c) => c.id)).toEqual(caught ? [d.check] : []);
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
