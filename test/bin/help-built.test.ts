/**
 * A binary prints the `--help` its build rendered (help.txt), not one rendered at start-up: it must be the
 * text the tool renders in-process from the same declaration, byte for byte, piped, on a terminal's
 * behalf and inside `--help --json`.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { binary, root, run } from "../helpers/bin.ts";
import { runInProcess } from "../helpers/in-process.ts";

const TOOLS = ["seo", "brain", "gate"] as const;

describe("--help built into a binary", () => {
  for (const name of TOOLS)
    test(`${name} --help prints what the tool renders in-process`, async () => {
      const tool = (await import(join(root, "tools", name, "tool.ts"))).default;
      const [built, inProcess] = await Promise.all([run(binary(name), ["--help"]), runInProcess(tool, ["--help"])]);
      expect(built.code).toBe(0);
      expect(inProcess.code).toBe(0);
      expect(built.stdout).toBe(inProcess.stdout);
      const json = await run(binary(name), ["--help", "--json"]);
      expect(json.json.data.help).toBe(inProcess.stdout);
    });
});
