/**
 * Every declaration mistake is one clear message naming the file, the tool,
 * the command and the fix, never a TypeError. The messages are the table in
 * docs/declaration-mistakes.md: each row's mistake is declared here, driven
 * through defineTool and compileTool, and must print exactly the row's message.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import * as z from "zod/mini";
import { compileTool } from "../../src/kit/compile/index.ts";
import { defineCommand, defineTool, type ToolSpec } from "../../src/kit/declare/define.ts";
import { DeclarationError } from "../../src/kit/declare/mistakes.ts";
import { UNIVERSAL_FLAGS } from "../../src/kit/cli/flags.ts";

const FILE = relative(process.cwd(), import.meta.path);
const DOC = join(import.meta.dir, "..", "..", "docs", "declaration-mistakes.md");
/** The universal flags as an unknown flag's message lists them: the doc writes UNIVERSAL for them. */
const UNIVERSAL = UNIVERSAL_FLAGS.map((f) => `--${f.name}`).join(", ");

const flags = z.object({ id: z.string(), kind: z.optional(z.enum(["a", "b"])), min: z.optional(z.int()) });
const base = {
  tier: 1,
  resource: "item",
  verb: "get",
  rw: "read",
  summary: "One item.",
  flags,
  result: z.object({ id: z.string() }),
  schema: "demo.item.get@1",
  errors: ["NOT_FOUND"],
  examples: [{ argv: ["--id", "i-1"], summary: "One item." }],
  run: async () => ({ id: "i-1" }),
} as const;
const list = {
  ...base,
  verb: "list",
  schema: "demo.item.list@1",
  flags: z.object({}),
  result: z.object({ items: z.array(z.string()) }),
  examples: [],
};
const toolOf = (...commands: object[]): ToolSpec => ({
  name: "demo",
  version: "1.0.0",
  contractVersion: 0,
  purpose: "A demonstration.",
  commands: commands as never,
});
const command = (override: object) => toolOf({ ...base, ...override });
const without = (key: keyof typeof base) => toolOf(Object.fromEntries(Object.entries(base).filter(([k]) => k !== key)));
const example = (argv: unknown) => command({ examples: [{ argv, summary: "An example." }] });

/** By the mistake's name in the doc's first column: the tool declaration that makes it. */
const MISTAKES: Record<string, () => ToolSpec> = {
  "`errors` left out": () => without("errors"),
  "`errors` not a list": () => command({ errors: "NOT_FOUND" }),
  "an error code with a typo": () => command({ errors: ["NOT_FOUN"] }),
  "an error code the kit does not have": () => command({ errors: ["TEAPOT"] }),
  "`schema` left out": () => without("schema"),
  "a malformed schema id": () => command({ schema: "demo.item-get@1" }),
  "a schema id with version 0": () => command({ schema: "demo.item.get@0" }),
  "a command declared twice": () => toolOf(base, base),
  "`result` left out": () => without("result"),
  "a result that is not an object schema": () => command({ result: z.array(z.string()) }),
  "`flags` left out": () => without("flags"),
  "flags that are not a zod object": () => command({ flags: z.string() }),
  "a flag whose value is an object": () =>
    command({ flags: z.object({ id: z.string(), range: z.optional(z.object({ from: z.int(), to: z.int() })) }) }),
  "a flag whose value is a list of objects": () =>
    command({ flags: z.object({ id: z.string(), pairs: z.optional(z.array(z.object({ a: z.string() }))) }) }),
  "a flag whose value is a list of lists": () =>
    command({ flags: z.object({ id: z.string(), grid: z.optional(z.array(z.array(z.int()))) }) }),
  "a flag whose value is a record": () =>
    command({ flags: z.object({ id: z.string(), labels: z.optional(z.record(z.string(), z.string())) }) }),
  "a date in the flags": () => command({ flags: z.object({ id: z.string(), since: z.optional(z.date()) }) }),
  "a date in the result": () => command({ result: z.object({ id: z.string(), at: z.date() }) }),
  "a refinement in the flags": () =>
    command({ flags: z.object({ id: z.string().check(z.refine((s) => s.startsWith("i-"))) }) }),
  "a list without bounds": () => toolOf({ ...list, list: {} }),
  "a default page of 0": () => toolOf({ ...list, list: { defaultLimit: 0 } }),
  "a default page over the kit's 50": () => toolOf({ ...list, list: { defaultLimit: 100 } }),
  "a largest page below the default": () => toolOf({ ...list, list: { defaultLimit: 20, maxLimit: 10 } }),
  "`verb` left out": () => without("verb"),
  "a forbidden verb": () => command({ verb: "show", schema: "demo.item.show@1" }),
  "a verb not in kebab-case": () => command({ verb: "getAll", schema: "demo.item.getAll@1" }),
  "a tier-2 verb declared tier 1": () => command({ verb: "scan", schema: "demo.item.scan@1" }),
  "a tier-1 verb declared tier 2": () => command({ tier: 2 }),
  "`tier` left out": () => without("tier"),
  "`rw` left out": () => without("rw"),
  "a read verb declared a write": () => command({ rw: "write" }),
  "a write verb declared a read": () => command({ verb: "create", schema: "demo.item.create@1" }),
  "`summary` left out": () => without("summary"),
  "a summary of two lines": () => command({ summary: "One item.\nIn full." }),
  "`run` left out": () => without("run"),
  "a flag the kit already provides": () => command({ flags: z.object({ id: z.string(), limit: z.int() }) }),
  "a flag shaped like a credential": () => command({ flags: z.object({ id: z.string(), apiKey: z.string() }) }),
  "an environment variable not in capitals": () =>
    command({ env: [{ name: "demo_token", scope: "read", description: "A token." }] }),
  "an example whose argv is one string": () => example("--id i-1"),
  "an example without a summary": () => command({ examples: [{ argv: ["--id", "i-1"] }] }),
  "an example with an unknown flag": () => example(["--idd", "i-1"]),
  "an example missing a required flag": () => example(["--kind", "a"]),
  "an example with a value of the wrong type": () => example(["--id", "i-1", "--min", "many"]),
  "an example with a value outside the enum": () => example(["--id", "i-1", "--kind", "c"]),
  "an example with a multi-word value split into words": () => example(["--id", "harbour", "history"]),
  "a tool without a name": () => ({ ...toolOf(base), name: undefined as never }),
  "a tool without a version": () => ({ ...toolOf(base), version: undefined as never }),
  "a tool without a purpose": () => ({ ...toolOf(base), purpose: "" }),
  "a tool with no commands": () => toolOf(),
  "a verb that is also a resource": () =>
    toolOf(base, { ...base, resource: undefined, verb: "item", tier: 2, schema: "demo.item@1" }),
};

/** The message a declaration prints, from defineTool or (past it) compileTool. */
function messageOf(spec: ToolSpec): { stage: string; message: string } {
  try {
    const tool = defineTool(spec);
    compileTool(tool);
  } catch (e) {
    expect(e).toBeInstanceOf(DeclarationError);
    const stage = (e as Error).stack?.includes("compileTool") ? "compileTool" : "defineTool";
    return { stage, message: (e as Error).message };
  }
  throw new Error("the declaration was accepted");
}

/** The doc's table rows: mistake, where it is found, and the message with FILE for the declaring file. */
function docRows(): { mistake: string; stage: string; message: string }[] {
  const lines = readFileSync(DOC, "utf8").split("\n");
  const header = lines.findIndex((l) => l.startsWith("| Mistake |"));
  const rows = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("| ")) break;
    const [mistake, stage, message] = line.slice(2, -2).split(" | ");
    rows.push({ mistake: mistake!, stage: stage!.replace(/`/g, ""), message: message!.replace(/^`` | ``$/g, "") });
  }
  return rows;
}

describe("declaration mistakes", () => {
  const rows = docRows();

  test("docs/declaration-mistakes.md lists exactly the mistakes declared here", () => {
    expect(rows.map((r) => r.mistake).sort()).toEqual(Object.keys(MISTAKES).sort());
  });

  for (const row of rows)
    test(`${row.mistake}: ${row.stage} prints the doc's message`, () => {
      const make = MISTAKES[row.mistake];
      expect(make).toBeDefined();
      expect(messageOf(make!())).toEqual({
        stage: row.stage,
        message: row.message.replace("FILE", FILE).replace("UNIVERSAL", UNIVERSAL),
      });
    });

  test("a command declared with defineCommand in its own file is named by that file", () => {
    const declared = defineCommand({ ...base, errors: undefined } as never);
    expect(() => defineTool(toolOf(declared))).toThrow(`${FILE}: tool demo, command "item get": errors is missing.`);
  });

  test("runMain says a mistake the compile step finds in one line on stderr, exits 1, and answers nothing on stdout", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mistake-"));
    const entry = join(dir, "tool.ts");
    const kit = join(import.meta.dir, "..", "..", "src", "kit");
    writeFileSync(
      entry,
      `import * as z from "zod/mini";\nimport { defineTool, runMain } from ${JSON.stringify(join(kit, "index.ts"))};\n` +
        `await runMain(defineTool({ name: "demo", version: "1.0.0", contractVersion: 0, purpose: "p", commands: [{ tier: 1, resource: "item", verb: "get", rw: "read", summary: "s", ` +
        `flags: z.object({ id: z.string() }), result: z.object({}), schema: "demo.item.get@1", errors: [], examples: [{ argv: ["--idd", "x"], summary: "s" }], run: async () => ({}) }] }));\n`,
    );
    const proc = Bun.spawnSync([process.execPath, entry, "item", "get", "--id", "x"], {
      cwd: dir,
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, NODE_PATH: join(import.meta.dir, "..", "..", "node_modules") },
    });
    expect({ exit: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() }).toEqual({
      exit: 1,
      stdout: "",
      stderr: `tool.ts: tool demo, command "item get": example 1 (\`demo item get --idd x\`) would be refused: UNKNOWN_FLAG: unknown flag --idd for demo item get; valid flags: --id, ${UNIVERSAL}. Fix: did you mean --id?\n`,
    });
  });

  test("a zod member a compiled tool cannot carry is named as a limit of the kit, with what to use instead", () => {
    const dir = mkdtempSync(join(tmpdir(), "mistake-"));
    const file = join(dir, "when.ts");
    writeFileSync(file, `import * as z from "zod/mini";\nexport const when = z.date();\n`);
    let message = "";
    try {
      compileTool(defineTool(toolOf(base)), { sources: [file] });
    } catch (e) {
      expect(e).toBeInstanceOf(DeclarationError);
      message = (e as Error).message;
    }
    expect(message).toStartWith(
      `tool demo: z.date (${file}) is not among the zod members a compiled tool can declare with. Fix: for a date declare z.iso.date() or z.iso.datetime() (an ISO 8601 string); the members the kit supports are z.array, z.boolean,`,
    );
    expect(message).not.toContain("stand-in");
    expect(message).not.toContain("export it");
  });

  test("the same declaration without the mistake is accepted", () => {
    expect(compileTool(defineTool(toolOf(base, list))).describe.commands.map((c) => c.name)).toEqual([
      "item get",
      "item list",
    ]);
  });
});
