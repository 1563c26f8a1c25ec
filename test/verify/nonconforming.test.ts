/**
 * Proves the verifier: each tool in the corpus breaks exactly one rule and
 * must fail exactly the check that rule belongs to under --strict
 * --all-extensions; a kit extension's rule only there: at the default level
 * the same tool passes (the corpus's `fake` claims no extension). A contract
 * rule's tool is not verified again at the default level: --strict runs
 * every probe the default level runs and judges each contract check alike,
 * only demanding proof of more. crate
 * (Python, outside the kit) is judged without golden cases, and again with
 * cases recorded from each broken tool itself where a case runs what the
 * defect breaks (and for every twin). The conforming twin passes
 * every check under --strict --all-extensions, golden cases and fuzzing
 * included. Each tool is verified once per mode and every assertion is read
 * from that one report.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCorpus, buildOutsideCorpus, type Corpus } from "../fixtures/nonconforming/corpus.ts";
import { CRATE_TWINS, DEFECTS } from "../fixtures/nonconforming/defects.ts";
import { root } from "../helpers/bin.ts";
import { failing, inTurn, type ToolReport, unrecorded, verify } from "./corpus-verify.ts";

const GOLDEN = join(root, "test", "fixtures", "nonconforming", "golden");
const FAKE = DEFECTS.filter((d) => !d.tool);
const CRATE = DEFECTS.filter((d) => d.tool === "crate");
const GROUPS = {
  plain: { args: ["--no-golden"], defects: FAKE.filter((d) => !d.needs) },
  golden: { args: ["--golden", GOLDEN], defects: FAKE.filter((d) => d.needs === "golden") },
  fuzz: { args: ["--no-golden", "--fuzz", "40", "--seed", "7"], defects: FAKE.filter((d) => d.needs === "fuzz") },
};
const CRATE_MODES = ["without golden cases", "with golden cases recorded from the tool itself"] as const;
type CrateMode = (typeof CRATE_MODES)[number];
/** The modes a crate defect is judged in: with golden cases only where one runs what it breaks (defects.ts). */
const modesOf = (d: (typeof CRATE)[number]): readonly CrateMode[] => (d.goldenMisses ? [CRATE_MODES[0]] : CRATE_MODES);
const REPLAYED = CRATE.filter((d) => modesOf(d).includes(CRATE_MODES[1]));
const BATCH = 5;

let corpus: Corpus;
let outside: Corpus;
const LEVELS = { contract: [] as string[], strict: ["--strict", "--all-extensions"] };
type LevelName = keyof typeof LEVELS;
/** What a level is asked about: every defect under --strict; at the default level, the extensions' (which pass there). */
const judgedAt = (level: LevelName, d: (typeof FAKE)[number]) => level === "strict" || d.extension === true;
const reports = new Map<string, ToolReport>();
const key = (level: LevelName, id: string) => `${level} ${id}`;

/**
 * crate's defects without golden cases, five to a verify; its twins together
 * under --strict (every check proven); then each twin, and each defect a golden case reaches, alone with
 * its own golden cases (one folder per tool: verify records into it), six
 * verify runs side by side, one probe at a time each. The twin 'none' replays the committed cases.
 */
async function verifyOutside(): Promise<void> {
  const keep = (mode: CrateMode, ids: readonly string[], tools: ToolReport[]) => {
    for (const [i, id] of ids.entries()) {
      reports.set(`${mode} ${id}`, tools[i]!);
      console.log(`verify judged crate ${id} (${mode}) in ${(tools[i]!.duration_ms / 1000).toFixed(1)} s`);
    }
  };
  const twins = CRATE_TWINS.map((t) => t.id);
  const batches = [...Array(Math.ceil(CRATE.length / BATCH)).keys()].map((i) =>
    CRATE.slice(i * BATCH, (i + 1) * BATCH).map((d) => d.id),
  );
  for (const ids of batches) keep(CRATE_MODES[0], ids, (await verify(["--no-golden"], ids.map(outside.binary))).tools);
  keep(CRATE_MODES[0], twins, (await verify(["--strict", "--no-golden"], twins.map(outside.binary))).tools);
  const alone = [...REPLAYED.map((d) => d.id), ...twins].map((id) => async () => {
    const golden = id === "none" ? GOLDEN : unrecorded(join(GOLDEN, "crate"), "crate");
    keep(CRATE_MODES[1], [id], (await verify(["--golden", golden, "--concurrency", "1"], [outside.binary(id)])).tools);
  });
  await inTurn(alone, 6);
}

beforeAll(async () => {
  corpus = await buildCorpus([...FAKE.map((d) => d.id), "small-max-page", "hangs-then-slow-lists"]);
  outside = buildOutsideCorpus([
    ...CRATE.map((d) => d.id),
    ...CRATE_TWINS.map((t) => t.id).filter((id) => id !== "none"),
  ]);
  await verifyOutside();
  for (const [level, extra] of Object.entries(LEVELS) as [LevelName, string[]][])
    await Promise.all(
      Object.values(GROUPS).map(async ({ args, defects: all }) => {
        const defects = all.filter((d) => judgedAt(level, d));
        if (defects.length === 0) return;
        const { tools } = await verify(
          [...extra, ...args],
          defects.map((d) => corpus.binary(d.id)),
        );
        for (const [i, d] of defects.entries()) reports.set(key(level, d.id), tools[i]!);
      }),
    );
}, 3_600_000);

describe("the nonconforming corpus", () => {
  test("has at least 25 tools, each with a distinct defect", () => {
    expect(DEFECTS.length).toBeGreaterThanOrEqual(25);
    expect(new Set(DEFECTS.map((d) => d.id)).size).toBe(DEFECTS.length);
  });

  for (const d of CRATE)
    for (const mode of modesOf(d))
      test(`${d.id} (crate, Python outside the kit): ${d.what} → fails ${d.check} and nothing else (${mode})`, () => {
        const report = reports.get(`${mode} ${d.id}`)!;
        expect(report.binary).toBe(outside.binary(d.id));
        expect(failing(report, [d.check])).toEqual([d.check]);
        expect(report.ok).toBe(false);
      });

  for (const t of CRATE_TWINS)
    for (const mode of CRATE_MODES)
      test(`crate's conforming twin '${t.id}' (${t.what}) passes every check (${mode}${mode === CRATE_MODES[0] ? ", --strict" : ""})`, () => {
        const report = reports.get(`${mode} ${t.id}`)!;
        expect(report.binary).toBe(outside.binary(t.id));
        expect(failing(report, [])).toEqual([]);
        expect(report.ok).toBe(true);
      });

  for (const mode of CRATE_MODES)
    test(`crate's twin proves its list, side-effect, terminal and error checks (${mode})`, () => {
      const checks = reports.get(`${mode} none`)!.checks;
      for (const id of [
        "lists.bounded",
        "lists.truncation",
        "lists.cursor",
        "lists.limit-zero",
        "fs.read-only",
        "fs.dry-run",
        "fs.plan",
        "net.read-only",
        "net.dry-run",
        "noninteractive.tty",
        "errors.range",
        "errors.enum",
        "errors.retryable",
        "describe.required",
        "output.fields-shape",
      ])
        expect({ id, status: checks.find((c) => c.id === id)!.status }).toEqual({ id, status: "pass" });
    });

  test("a list only crate's own plan → apply can fill: its default bound is proven on the words verify had it add (no golden cases)", () => {
    // twin-small-catalogue conforms; its catalogue (6 items) fits one default page, so item list cannot show a bound.
    const bounded = reports
      .get(`${CRATE_MODES[0]} twin-small-catalogue`)!
      .checks.find((c) => c.id === "lists.bounded")!;
    expect(bounded.status).toBe("pass");
    expect(bounded.note).toContain("'word list': data made by its own plan → apply examples");
  });

  test("a plain list longer than its default proves the bound where its one example (a filter) lists too few (--strict, no golden cases)", () => {
    const bounded = reports
      .get(`${CRATE_MODES[0]} twin-filtered-example`)!
      .checks.find((c) => c.id === "lists.bounded")!;
    expect(bounded.status).toBe("pass");
  });

  test("caught / total over the whole corpus, by check: every defect caught by exactly its check", () => {
    const table = new Map<string, { caught: number; total: number }>();
    const count = (check: string, caught: boolean) => {
      const row = table.get(check) ?? { caught: 0, total: 0 };
      table.set(check, { caught: row.caught + (caught ? 1 : 0), total: row.total + 1 });
    };
    const exactly = (r: ToolReport | undefined, check: string) =>
      r !== undefined &&
      JSON.stringify(r.checks.filter((c) => c.status === "fail").map((c) => c.id)) === JSON.stringify([check]);
    for (const d of CRATE)
      for (const mode of modesOf(d)) count(d.check, exactly(reports.get(`${mode} ${d.id}`), d.check));
    for (const d of FAKE) count(d.check, exactly(reports.get(key("strict", d.id)), d.check));
    const rows = [...table].sort(([a], [b]) => a.localeCompare(b));
    console.log(rows.map(([check, { caught, total }]) => `${check.padEnd(28)} ${caught}/${total}`).join("\n"));
    const sum = rows.reduce((n, [, r]) => ({ caught: n.caught + r.caught, total: n.total + r.total }), {
      caught: 0,
      total: 0,
    });
    console.log(
      `caught ${sum.caught}/${sum.total} (crate without golden cases, and with its own where one reaches the defect; fake under --strict --all-extensions)`,
    );
    expect(sum.caught).toBe(sum.total);
  });

  for (const d of FAKE)
    for (const level of (Object.keys(LEVELS) as LevelName[]).filter((l) => judgedAt(l, d))) {
      const caught = level === "strict"; // the default level is asked only about extensions, which pass there
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
    const { code, tools } = await verify(
      ["--strict", "--all-extensions", "--golden", golden],
      [corpus.binary("small-max-page")],
    );
    const cursor = tools[0]!.checks.find((c) => c.id === "lists.cursor")!;
    expect(cursor.status).toBe("pass");
    expect(tools[0]!.checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);

  test("a run verify cut short, once the tool had hung twice, is no evidence: a slow list is not a failed one (strict)", async () => {
    // One run at a time: the two hangs come before the lists, and every list run (800 ms) outlasts the short limit.
    const { tools } = await verify(
      ["--strict", "--all-extensions", "--no-golden", "--concurrency", "1", "--timeout", "3000"],
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

  test("the conforming twin passes every check, with golden cases and fuzzing (strict)", async () => {
    const { code, tools } = await verify(
      [...LEVELS.strict, "--golden", GOLDEN, "--fuzz", "40", "--seed", "7"],
      [corpus.binary("none")],
    );
    expect(tools[0]!.checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);
});
