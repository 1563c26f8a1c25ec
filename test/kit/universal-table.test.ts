/**
 * The universal flag table is the one place a universal flag is written: a
 * copy of the kit with one row added to cli/universal-flags.ts, and nothing
 * else changed, takes the flag through every door — argv, --params, the
 * command's context (its TypeScript type too), the declared-tools manifest
 * and MCP's input, --describe and its extensions, --help, the fleet's
 * SKILL.md — and refuses a command that would redefine it.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const ROW = `  {
    name: "probe-flag",
    key: "probeFlag",
    kind: "boolean",
    inParams: true,
    context: true,
    extension: "probe-flag",
    description: "A row this test adds.",
    declared: () => ({ type: "boolean", description: "The probe flag." }),
  },
`;

/** A tool whose list command answers with what its context says of the new flag. */
const TOOL = `import * as z from "zod/mini";
import { defineCommand, defineTool } from "./src/kit/index.ts";

export const itemList = defineCommand({
  resource: "item",
  verb: "list",
  tier: 1,
  rw: "read",
  summary: "Say whether the probe flag was given.",
  flags: z.object({}),
  result: z.object({ probe: z.boolean(), items: z.array(z.string()) }),
  schema: "probe.item.list@1",
  errors: [],
  list: { defaultLimit: 10 },
  run: async (ctx) => ({ probe: ctx.probeFlag, items: ctx.paginate(["a", "b"]) }),
});

export default defineTool({
  name: "probe",
  version: "0.0.1",
  contractVersion: 0,
  purpose: "Carries a universal flag the kit did not have.",
  commands: [itemList],
});
`;

const TSCONFIG = JSON.stringify({
  extends: join(root, "tsconfig.json"),
  compilerOptions: { types: ["bun"], typeRoots: [join(root, "node_modules", "@types")] },
  include: ["probe-tool.ts"],
});

let kit: string;

/** tsc over the probe tool in the copy: its exit code and what it said. */
async function typecheck(): Promise<{ code: number; out: string }> {
  const p = Bun.spawn([join(root, "node_modules", ".bin", "tsc"), "-p", kit], { stdout: "pipe", stderr: "pipe" });
  const out = (await new Response(p.stdout).text()) + (await new Response(p.stderr).text());
  return { code: await p.exited, out };
}

let typedBefore: { code: number; out: string };
let typedAfter: { code: number; out: string };

beforeAll(async () => {
  kit = mkdtempSync(join(tmpdir(), "kit-copy-"));
  cpSync(join(root, "src", "kit"), join(kit, "src", "kit"), { recursive: true });
  // The package's own file: the kit reads its version there (`--version`).
  cpSync(join(root, "package.json"), join(kit, "package.json"));
  symlinkSync(join(root, "node_modules"), join(kit, "node_modules"));
  writeFileSync(join(kit, "probe-tool.ts"), TOOL);
  writeFileSync(join(kit, "tsconfig.json"), TSCONFIG);
  typedBefore = await typecheck();
  const table = join(kit, "src", "kit", "cli", "universal-flags.ts");
  const text = readFileSync(table, "utf8");
  const at = text.indexOf("const TABLE = [\n");
  expect(at).toBeGreaterThan(-1);
  const cut = at + "const TABLE = [\n".length;
  writeFileSync(table, text.slice(0, cut) + ROW + text.slice(cut));
  typedAfter = await typecheck();
}, SLOW_HOOK);

/** The copy's modules: a graph of their own, so the added row is live in every one of them. */
const fromCopy = async () => ({
  tool: (await import(join(kit, "probe-tool.ts"))).default,
  itemList: (await import(join(kit, "probe-tool.ts"))).itemList,
  ...(await import(join(kit, "src", "kit", "compile", "index.ts"))),
  ...(await import(join(kit, "src", "kit", "runtime", "run-tool.ts"))),
  ...(await import(join(kit, "src", "kit", "runtime", "source.ts"))),
  ...(await import(join(kit, "src", "kit", "bindings", "manifest.ts"))),
  ...(await import(join(kit, "src", "kit", "bindings", "mcp.ts"))),
  ...(await import(join(kit, "src", "kit", "introspection", "skill.ts"))),
  ...(await import(join(kit, "src", "kit", "declare", "define.ts"))),
});

/** The copy's tool run through its runTool, argv and stdin in memory. */
async function run(argv: readonly string[], stdin = ""): Promise<{ code: number; stdout: string }> {
  const k = await fromCopy();
  let stdout = "";
  const io = {
    argv,
    env: { PATH: process.env.PATH },
    cwd: kit,
    tmpdir: kit,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    columns: 100,
    writeStdout: async (text: string) => void (stdout += text),
    writeStderr: () => {},
    readStdin: async () => stdin,
    now: () => Date.now(),
    onSignal: () => {},
    respawnWithout: async () => 1,
    terminal: () => {
      throw new Error("no terminal here");
    },
    exit: () => undefined as never,
  };
  const code = await k.runTool(k.sourceOf(k.tool, k.compileTool(k.tool)), io);
  return { code, stdout };
}

describe("one row in the universal flag table", () => {
  test("types the context: without the row ctx.probeFlag is no field of it, with the row it is a boolean", () => {
    expect(typedBefore.code).not.toBe(0);
    expect(typedBefore.out).toContain("probeFlag");
    expect(typedAfter).toEqual({ code: 0, out: "" });
  });

  test("is parsed off argv and reaches the command's context", async () => {
    const given = await run(["item", "list", "--probe-flag"]);
    const absent = await run(["item", "list"]);
    expect([given.code, JSON.parse(given.stdout).data.probe]).toEqual([0, true]);
    expect([absent.code, JSON.parse(absent.stdout).data.probe]).toEqual([0, false]);
  });

  test("is read from a --params document", async () => {
    const r = await run(["item", "list", "--params", "-"], JSON.stringify({ "probe-flag": true }));
    expect([r.code, JSON.parse(r.stdout).data.probe]).toEqual([0, true]);
  });

  test("is in --describe's universal flags, and its extension among the extensions", async () => {
    const doc = JSON.parse((await run(["--describe"])).stdout);
    expect(doc.universal_flags).toContainEqual({
      name: "probe-flag",
      type: "boolean",
      description: "A row this test adds.",
    });
    expect(doc.extensions).toContain("probe-flag");
  });

  test("is in the declared-tools manifest's and MCP's input for the command", async () => {
    const k = await fromCopy();
    const doc = k.compileTool(k.tool).describe;
    const want = { type: "boolean", description: "The probe flag." };
    expect(k.declaredTools([doc]).tools.probe_list_item.input_schema.properties["probe-flag"]).toEqual(want);
    const served = k.servedTools(doc, "full").map((s: unknown) => k.toolOf(s));
    expect(served[0].inputSchema.properties["probe-flag"]).toEqual(want);
  });

  test("is in --help's universal flags and in the fleet's SKILL.md", async () => {
    const k = await fromCopy();
    const help = JSON.parse((await run(["item", "list", "--help", "--json"])).stdout).data.help;
    expect(help).toMatch(/^ {2}--probe-flag +A row this test adds\.$/m);
    expect(k.fleetSkill([k.compileTool(k.tool).describe])).toContain(
      "| `--probe-flag` | boolean | A row this test adds. |",
    );
  });

  test("is a flag no command may declare as its own", async () => {
    const k = await fromCopy();
    const z = await import(join(kit, "node_modules", "zod", "mini"));
    const redefines = { ...k.itemList, flags: z.object({ probeFlag: z.boolean() }) };
    expect(() =>
      k.defineTool({ name: "probe", version: "0.0.1", contractVersion: 0, purpose: "x", commands: [redefines] }),
    ).toThrow("flag --probe-flag is universal");
  });
});
