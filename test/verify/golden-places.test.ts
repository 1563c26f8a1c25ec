/**
 * Golden cases mean what they say, on tally (a small kit tool, compiled): a
 * case runs in the folder its `files` are laid out in, so a relative path
 * names them; `--update` records a relative --run-dir as [RUN_DIR], so what
 * it records replays; and a code a command never declared fails verify,
 * though the kit answers it as INTERNAL.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../../scripts/compile.ts";
import { binary, root } from "../helpers/bin.ts";

const FIXTURE = join(root, "test", "fixtures", "tally");
const TICKETS = { "tickets/a.txt": "one", "tickets/b.txt": "two", "tickets/empty.txt": "" };
const CASES: Record<string, object> = {
  "list-store": { files: TICKETS, argv: ["entry", "list", "--store", "tickets"] },
  // The store by its token, so only the relative --run-dir is on trial here.
  "count-run-dir": { files: TICKETS, argv: ["count", "--store", "[CASE_DIR]/tickets", "--run-dir", "run"] },
  "get-empty": { files: TICKETS, argv: ["entry", "get", "--store", "tickets", "--name", "empty.txt"] },
};

interface Check {
  id: string;
  status: string;
  evidence: { what: string }[];
}

let dir: string;
let tally: string;

/** verify --json over tally with the case folder, its checks by id. */
async function verify(args: string[]): Promise<Record<string, Check>> {
  await using p = Bun.spawn([binary("verify"), "--json", "--golden", join(dir, "golden"), ...args, tally], {
    cwd: dir,
    env: { ...process.env, CI: "" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const answer = JSON.parse(await new Response(p.stdout).text());
  const checks: Check[] = (answer.data ?? answer.error.detail).tools[0].checks;
  return Object.fromEntries(checks.map((c) => [c.id, c]));
}

const recorded = (name: string) =>
  JSON.parse(readFileSync(join(dir, "golden", "tally", `${name}.json`), "utf8")).expect as {
    exit: number;
    stdout: any;
  };

let first: Record<string, Check>;
let replay: Record<string, Check>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "golden-places-"));
  mkdirSync(join(dir, "bin"));
  mkdirSync(join(dir, "golden", "tally"), { recursive: true });
  // tally compiled, as a tool ships (run from its source, each of verify's runs would transpile the kit anew);
  // spec.yaml beside it.
  tally = join(dir, "bin", "tally");
  await compile(join(FIXTURE, "tally.ts"), tally);
  copyFileSync(join(FIXTURE, "spec.yaml"), join(dir, "bin", "spec.yaml"));
  for (const [name, spec] of Object.entries(CASES))
    writeFileSync(join(dir, "golden", "tally", `${name}.json`), JSON.stringify(spec));
  first = await verify(["--strict", "--update"]);
  replay = await verify(["--strict"]);
}, 300_000);

describe("golden cases", () => {
  test("a case runs in the folder its files are laid out in: a relative --store lists them", () => {
    expect(recorded("list-store")).toMatchObject({
      exit: 0,
      stdout: { data: { items: [{ name: "a.txt" }, { name: "b.txt" }, { name: "empty.txt" }] } },
    });
  });

  test("--update records a relative --run-dir as [RUN_DIR], no temporary path left", () => {
    const count = recorded("count-run-dir");
    expect([count.exit, count.stdout.data.artifact, count.stdout.meta.run_dir]).toEqual([
      0,
      "[RUN_DIR]/count.json",
      "[RUN_DIR]",
    ]);
    expect(JSON.stringify(count)).not.toContain(tmpdir());
  });

  test("what --update recorded replays green", () => {
    expect(first.golden!.status).toBe("pass");
    expect(replay.golden).toMatchObject({ status: "pass", evidence: [] });
  });
});

describe("a code the command never declared", () => {
  test("the kit answers INTERNAL naming it, and verify fails errors.declared on it, recorded or replayed", () => {
    expect(recorded("get-empty")).toMatchObject({
      exit: 1,
      stdout: { error: { code: "INTERNAL", detail: { undeclared: { code: "CONFLICT" } } } },
    });
    for (const run of [first, replay]) {
      expect(run["errors.declared"]!.status).toBe("fail");
      expect(run["errors.declared"]!.evidence.map((e) => e.what)).toContain(
        "'entry get' raised CONFLICT, which --describe does not declare for it (answered as INTERNAL)",
      );
    }
  });
});
