/** seo at the contract seam, run in-process through the kit (runTool over a KitIO): envelope, error classes, flags, lists, describe and help. */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import seoTool from "../../tools/seo/tool.ts";
import { root } from "../helpers/bin.ts";
import { runInProcess, type InProcessOptions } from "../helpers/in-process.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const seo = (argv: readonly string[], opts: InProcessOptions = {}) => runInProcess(seoTool, argv, opts);
const site = join(root, "examples", "site");
let runDir: string;

/** A run dir with the example site crawled, extracted and audited. */
beforeAll(async () => {
  runDir = mkdtempSync(join(tmpdir(), "seo-contract-"));
  for (const stage of [["crawl", "--dir", site, "--base-url", "https://harbour.example"], ["extract"], ["audit"]]) {
    const r = await seo([...stage, "--run-dir", runDir]);
    expect(r.code).toBe(0);
  }
}, SLOW_HOOK);

const ENVELOPE_KEYS = ["ok", "contract_version", "tool", "command", "data", "error", "meta"];
const META_KEYS = [
  "schema",
  "duration_ms",
  "cost_usd",
  "llm_tokens",
  "pagination",
  "truncated",
  "truncation_hint",
  "run_dir",
  "outcome",
  "next",
];

function expectEnvelope(env: any) {
  expect(Object.keys(env)).toEqual(ENVELOPE_KEYS);
  expect(Object.keys(env.meta)).toEqual(META_KEYS);
  expect(Object.keys(env.meta.outcome)).toEqual(["unit", "projected", "realized", "cost_usd", "confidence"]);
  expect(env.ok).toBe(env.error === null && env.data !== null && typeof env.data === "object");
  expect(env.contract_version).toBe(0);
  expect(env.tool).toBe("seo");
}

describe("seo: errors and exit codes agree", () => {
  test("an enum value outside the set: exit 2, INVALID_ENUM, allowed and got", async () => {
    const r = await seo(["audit", "--severity", "urgent", "--json"]);
    expect(r.code).toBe(2);
    expectEnvelope(r.json);
    expect(r.json.error).toEqual({
      code: "INVALID_ENUM",
      message: "--severity must be one of: low, medium, high (got: 'urgent')",
      retryable: false,
      allowed: ["low", "medium", "high"],
      got: "urgent",
    });
    expect(r.json.data).toBeNull();
  });

  test("a forbidden synonym is refused, with the canonical verb as the hint", async () => {
    const r = await seo(["ls"]);
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe("UNKNOWN_COMMAND");
    expect(r.json.error.hint).toContain("list");
    expect(r.json.error.hint).toContain("seo page list");
    expect(r.json.error.allowed).toContain("finding list");

    const show = await seo(["page", "show"]);
    expect([show.code, show.json.error.code]).toEqual([2, "UNKNOWN_COMMAND"]);
    expect(show.json.error.hint).toContain("`seo page get`");
  });

  // Each: argv, the code, and the exit class the contract gives that code.
  const cases: [string, string[], string, number][] = [
    ["unknown flag", ["audit", "--severty", "high"], "UNKNOWN_FLAG", 2],
    ["unknown command", ["audti"], "UNKNOWN_COMMAND", 2],
    ["missing required flag", ["page", "get"], "MISSING_FLAG", 2],
    ["wrong type", ["crawl", "--dir", ".", "--max-pages", "many"], "INVALID_VALUE", 2],
    ["out of range", ["crawl", "--dir", ".", "--max-pages", "0"], "OUT_OF_RANGE", 2],
    ["not a URL", ["crawl", "--url", "not a url"], "INVALID_VALUE", 2],
    ["--limit 0 is not unbounded", ["finding", "list", "--limit", "0"], "OUT_OF_RANGE", 2],
    ["two sources", ["crawl", "--url", "http://127.0.0.1:9", "--dir", "."], "CONFLICTING_FLAGS", 2],
    ["neither source", ["crawl"], "MISSING_FLAG", 2],
    ["stray argument", ["audit", "high"], "USAGE", 2],
    ["bad cursor", ["finding", "list", "--cursor", "nope"], "INVALID_CURSOR", 2],
    ["bad --fields path", ["finding", "list", "--fields", "items.nope"], "INVALID_FIELDS", 2],
    ["folder that is not there", ["crawl", "--dir", "/nonexistent/site"], "INVALID_INPUT", 3],
    ["connection refused is retryable", ["crawl", "--url", "http://127.0.0.1:9/"], "NETWORK_ERROR", 4],
  ];
  for (const [name, argv, code, exit] of cases)
    test(`${name}: exit ${exit}, ${code}`, async () => {
      const r = await seo(argv);
      expectEnvelope(r.json);
      expect({ exit: r.code, code: r.json.error?.code, ok: r.json.ok }).toEqual({ exit, code, ok: false });
      expect(r.json.error.retryable).toBe(exit === 4);
      expect(r.json.error.message).not.toContain("\n");
    });

  test("a missing artifact is exit 3, and the hint names the stage to run first", async () => {
    const empty = mkdtempSync(join(tmpdir(), "seo-empty-"));
    const r = await seo(["extract", "--run-dir", empty]);
    expect([r.code, r.json.error.code]).toEqual([3, "MISSING_ARTIFACT"]);
    expect(r.json.error.hint).toBe(`run \`seo crawl --run-dir ${empty}\` first`);
    expect(r.json.error.detail).toEqual({ artifact: "crawl", stage: "crawl" });
  });

  test("a page that is not there is NOT_FOUND (exit 3) with the nearest URL as a hint", async () => {
    const r = await seo(["page", "get", "--url", "https://harbour.example/abot.html", "--run-dir", runDir]);
    expect([r.code, r.json.error.code]).toEqual([3, "NOT_FOUND"]);
    expect(r.json.error.hint).toContain("https://harbour.example/about.html");
  });

  test("a corrupt artifact is INVALID_ARTIFACT, not a crash", async () => {
    const dir = mkdtempSync(join(tmpdir(), "seo-corrupt-"));
    writeFileSync(join(dir, "crawl.json"), "{ not json");
    const r = await seo(["extract", "--run-dir", dir]);
    expect([r.code, r.json.error.code]).toEqual([3, "INVALID_ARTIFACT"]);
    expect(r.stdout).not.toContain("    at ");
  });

  test("a crawl.json of an older seo (pages' HTML, not what they say) is INVALID_ARTIFACT, telling to crawl again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "seo-older-"));
    const crawl = JSON.parse(readFileSync(join(runDir, "crawl.json"), "utf8"));
    // An older crawl.json held its pages inline.
    crawl.data.pages = readFileSync(join(runDir, crawl.data.pages_file.file), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    delete crawl.data.pages_file;
    for (const page of crawl.data.pages) {
      delete page.parsed;
      page.html = "<html><title>t</title></html>";
    }
    writeFileSync(join(dir, "crawl.json"), JSON.stringify(crawl));
    const r = await seo(["extract", "--run-dir", dir]);
    expect([r.code, r.json.error.code]).toEqual([3, "INVALID_ARTIFACT"]);
    expect(r.json.error.hint).toContain("seo crawl");
  });
});

describe("seo: bounded lists and cursors", () => {
  test("a list without --limit returns at most its declared default and says it was cut", async () => {
    const r = await seo(["finding", "list", "--run-dir", runDir]);
    const { pagination, truncated, truncation_hint } = r.json.meta;
    expect(pagination.limit).toBe(20);
    expect(r.json.data.items.length).toBe(20);
    expect(pagination.total).toBeGreaterThan(20);
    expect(truncated).toBe(true);
    expect(truncation_hint).toMatch(/--limit=\d+|--cursor=/);
  });

  test("following next_cursor to the end returns every item exactly once", async () => {
    const all = await seo(["finding", "list", "--run-dir", runDir, "--limit", "1000"]);
    const everyId: string[] = all.json.data.items.map((f: any) => f.id);
    expect(all.json.meta.truncated).toBe(false);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await seo([
        "finding",
        "list",
        "--run-dir",
        runDir,
        "--limit",
        "7",
        ...(cursor ? ["--cursor", cursor] : []),
      ]);
      expect(r.code).toBe(0);
      seen.push(...r.json.data.items.map((f: any) => f.id));
      cursor = r.json.meta.pagination.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(everyId);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.ceil(everyId.length / 7));
  });

  test("a cursor replayed with different filters is refused", async () => {
    const first = await seo(["finding", "list", "--run-dir", runDir, "--limit", "2"]);
    const cursor = first.json.meta.pagination.next_cursor;
    const r = await seo([
      "finding",
      "list",
      "--run-dir",
      runDir,
      "--limit",
      "2",
      "--severity",
      "high",
      "--cursor",
      cursor,
    ]);
    expect([r.code, r.json.error.code]).toEqual([2, "INVALID_CURSOR"]);
  });
});

describe("seo: --fields and --params", () => {
  test("--fields projects data and never changes the envelope's shape", async () => {
    const full = await seo(["finding", "list", "--run-dir", runDir, "--limit", "3"]);
    const slim = await seo(["finding", "list", "--run-dir", runDir, "--limit", "3", "--fields", "items.id,items.rule"]);
    expect(Object.keys(slim.json)).toEqual(Object.keys(full.json));
    expect(Object.keys(slim.json.meta)).toEqual(Object.keys(full.json.meta));
    expect(slim.json.data.items).toEqual(full.json.data.items.map((f: any) => ({ id: f.id, rule: f.rule })));
  });

  test("--params - reads the flags as JSON from stdin, the same as argv", async () => {
    const viaArgv = await seo([
      "finding",
      "list",
      "--run-dir",
      runDir,
      "--severity",
      "medium",
      "--rule",
      "canonical",
      "--limit",
      "3",
    ]);
    const viaParams = await seo(["finding", "list", "--params", "-"], {
      stdin: JSON.stringify({ severity: "medium", rule: "canonical", limit: 3, "run-dir": runDir }),
    });
    expect(viaParams.code).toBe(0);
    expect(viaParams.json.data).toEqual(viaArgv.json.data);
    expect(viaParams.json.meta.pagination).toEqual(viaArgv.json.meta.pagination);
  });

  test("--params from a file, with a value an agent would need to shell-quote", async () => {
    const dir = mkdtempSync(join(tmpdir(), "seo-params-"));
    const file = join(dir, "params.json");
    writeFileSync(file, JSON.stringify({ url: 'https://harbour.example/it\'s "quoted" $(rm -rf)', "run-dir": runDir }));
    const r = await seo(["page", "get", "--params", file]);
    expect([r.code, r.json.error.code]).toEqual([3, "NOT_FOUND"]);
    expect(r.json.error.got).toBe('https://harbour.example/it\'s "quoted" $(rm -rf)');
  });

  test("--params with command flags on the command line too is a conflict", async () => {
    const r = await seo(["finding", "list", "--params", "-", "--severity", "high"], { stdin: "{}" });
    expect([r.code, r.json.error.code]).toEqual([2, "CONFLICTING_FLAGS"]);
  });

  test("--params that is not a JSON object, or has an unknown key, is a usage error", async () => {
    for (const [stdin, code] of [
      ["[1,2]", "INVALID_PARAMS"],
      ["{oops", "INVALID_PARAMS"],
      ['{"severty":"high"}', "UNKNOWN_FLAG"],
      ['{"severity":3}', "INVALID_ENUM"],
    ] as const) {
      const r = await seo(["finding", "list", "--params", "-"], { stdin });
      expect([r.code, r.json.error.code]).toEqual([2, code]);
    }
  });
});

describe("seo: describe and help", () => {
  test("--describe is the bare document: commands, tiers, read/write, JSON Schema", async () => {
    const r = await seo(["--describe"]);
    expect(r.code).toBe(0);
    const doc = r.json;
    expect(doc.contract_version).toBe(0);
    expect(doc.commands.map((c: any) => c.name)).toEqual([
      "crawl",
      "extract",
      "audit",
      "score",
      "synthesize",
      "plan",
      "apply",
      "target list",
      "plan-item list",
      "action list",
      "page list",
      "page get",
      "finding list",
      "finding get",
    ]);
    const writes = ["plan", "apply"];
    for (const c of doc.commands) {
      expect(c.rw).toBe(writes.includes(c.name) ? "write" : "read");
      expect(c.tier).toBe(c.resource || writes.includes(c.name) ? 1 : 2);
      expect(c.input_schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(c.output_schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(c.result_schema).toBe(`seo.${c.name.replace(" ", ".")}@1`);
    }
    const audit = doc.commands.find((c: any) => c.name === "audit");
    expect(audit.flags.find((f: any) => f.name === "severity")).toMatchObject({
      type: "enum",
      enum: ["low", "medium", "high"],
      default: "low",
      required: false,
    });
    expect(audit.pagination).toEqual({ default_limit: 20, max_limit: 1000 });
  });

  test("per-command --describe describes just that command, even beside bad flags", async () => {
    const r = await seo(["page", "get", "--describe", "--bogus"]);
    expect(r.code).toBe(0);
    expect(r.json.commands.map((c: any) => c.name)).toEqual(["page get"]);
  });

  test("--help lists every flag --describe lists", async () => {
    const describe = (await seo(["crawl", "--describe"])).json;
    const help = (await seo(["crawl", "--help"])).stdout;
    for (const f of describe.commands[0].flags) expect(help).toContain(`--${f.name}`);
    for (const f of describe.universal_flags) expect(help).toContain(`--${f.name}`);
  });
});

describe("seo: --dry-run", () => {
  test("a stage on --dry-run computes but writes no artifact", async () => {
    const dir = mkdtempSync(join(tmpdir(), "seo-dry-"));
    const r = await seo(["crawl", "--dir", site, "--run-dir", dir, "--dry-run"]);
    expect(r.code).toBe(0);
    expect(r.json.data.dry_run).toBe(true);
    expect(r.json.data.artifact).toBeNull();
    expect(readdirSync(dir)).toEqual([]);
  });
});
