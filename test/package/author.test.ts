/**
 * The `agent-cli-kit` command as an author meets it, run through its Node
 * launcher: the contract's envelope, errors that teach, and its one named
 * departure (`new`, a person's spelling), held by verify with a baseline.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, root } from "../helpers/bin.ts";
import { rounds } from "../helpers/rounds.ts";

const LAUNCH = join(root, "src", "author", "launch.js");

async function kit(args: string[], cwd: string) {
  await using p = Bun.spawn(["node", LAUNCH, ...args, "--json"], {
    cwd,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, exit] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  return { exit, json: JSON.parse(stdout) };
}

/** Rounds of eight racing inits: two under `npm test`, ten under `npm run soak`. */
const RACES = rounds(2, 10);

const scratch = () => mkdtempSync(join(tmpdir(), "author-"));

describe("agent-cli-kit", () => {
  test("conforms to the contract strictly, but for `new`, the one departure its README names", async () => {
    const dir = scratch();
    const baseline = join(dir, "baseline.json");
    writeFileSync(baseline, JSON.stringify({ "agent-cli-kit": ["errors.kit-codes"] }));
    // The launcher runs the kit's TypeScript through Bun with its transpiler cache off (contract §10: nothing
    // written to HOME), so each run transpiles it anew: beside the rest of the suite on two cores that has
    // taken over verify's default 10 s bound per run, which verify rightly calls a hang.
    const argv = ["--strict", "--no-golden", "--timeout", "60000", "--json", "--baseline", baseline, LAUNCH];
    await using p = Bun.spawn([binary("verify"), ...argv], {
      cwd: dir,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const answer = JSON.parse(await new Response(p.stdout).text());
    const checks = answer.data?.tools[0].checks ?? answer.error.detail.tools[0].checks;
    expect({
      exit: await p.exited,
      departures: checks
        .filter((c: { status: string }) => c.status !== "pass" && c.status !== "skip")
        .map((c: { id: string; status: string }) => `${c.id}: ${c.status}`),
    }).toEqual({
      exit: 0,
      departures: ["errors.kit-codes: expected-fail"],
    });
  }, 300_000);

  test("new NAME is init --name NAME; without a name it asks for --name", async () => {
    const dir = scratch();
    const missing = await kit(["new"], dir);
    expect([missing.exit, missing.json.error.code, missing.json.command]).toEqual([2, "MISSING_FLAG", "init"]);
    const bad = await kit(["new", "Weather"], dir);
    expect([bad.exit, bad.json.error.code]).toEqual([2, "INVALID_VALUE"]);
  });

  test("init never writes over a folder's own files, and run again over its own work answers the same", async () => {
    const dir = scratch();
    const first = await kit(["init", "--name", "w", "--dry-run"], dir);
    expect([first.exit, first.json.data.binary, first.json.data.files]).toEqual([
      0,
      null,
      expect.arrayContaining(["tool.ts", "spec.yaml", "ci.sh", ".github/workflows/ci.yml"]),
    ]);
    const made = await kit(["init", "--name", "w"], dir);
    // The kit does not resolve from a bare temp folder, and init installs only when asked: the lines left to run.
    expect([made.exit, made.json.data.installed, made.json.data.then.slice(1)]).toEqual([
      0,
      false,
      ["npm install", "npx agent-cli-kit build", "npx agent-cli-kit verify --update dist/w"],
    ]);
    expect(await kit(["init", "--name", "w"], dir)).toEqual({
      exit: 0,
      json: { ...made.json, meta: expect.anything() },
    });
    writeFileSync(join(dir, "w", "notes.txt"), "mine");
    const refused = await kit(["init", "--name", "w"], dir);
    expect([refused.exit, refused.json.error.code, refused.json.error.hint]).toEqual([
      3,
      "INVALID_INPUT",
      expect.stringContaining("never written over"),
    ]);
    expect(readFileSync(join(dir, "w", "notes.txt"), "utf8")).toBe("mine");
  });

  test(`eight inits racing for one folder: each answers the same, and the folder holds the template whole, ${RACES} round(s)`, async () => {
    for (let round = 0; round < RACES; round++) {
      const dir = scratch();
      const answers = await Promise.all(Array.from({ length: 8 }, () => kit(["init", "--name", "w"], dir)));
      expect(new Set(answers.map((a) => JSON.stringify([a.exit, a.json.data])))).toEqual(
        new Set([JSON.stringify([0, answers[0]!.json.data])]),
      );
      expect(readFileSync(join(dir, "w", "ci.sh"), "utf8")).toContain("agent-cli-kit verify --strict");
    }
  }, 300_000);

  test("build teaches: no tool.ts, a default export that is no tool, no spec.yaml, a command outside commands/", async () => {
    const dir = scratch();
    const cases: [string, Record<string, string>, string][] = [
      ["empty", {}, "no tool.ts"],
      ["not-a-tool", { "tool.ts": "export default { name: 'x' };\n" }, "is not a tool"],
      [
        "no-spec",
        {
          "tool.ts": `import { defineTool } from "${join(root, "src", "kit", "index.ts")}";\nimport get from "./commands/get.ts";\nexport default defineTool({ name: "x", version: "1.0.0", contractVersion: 0, purpose: "p", commands: [get] });\n`,
          "commands/get.ts": `import * as z from "${join(root, "src", "kit", "schema.ts")}";\nimport { defineCommand } from "${join(root, "src", "kit", "index.ts")}";\nexport default defineCommand({ verb: "get", tier: 1, rw: "read", summary: "s", flags: z.object({}), result: z.object({}), schema: "x.get@1", errors: [], async run() { return {}; } });\n`,
        },
        "no spec.yaml",
      ],
    ];
    for (const [name, files, says] of cases) {
      const folder = join(dir, name);
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(folder, path, ".."), { recursive: true });
        writeFileSync(join(folder, path), text);
      }
      mkdirSync(folder, { recursive: true });
      const r = await kit(["build", "--dir", folder], dir);
      expect([
        name,
        r.exit,
        r.json.error?.code,
        r.json.error?.message.includes(says),
        typeof r.json.error?.hint,
      ]).toEqual([name, 3, "INVALID_INPUT", true, "string"]);
    }
  });
});
