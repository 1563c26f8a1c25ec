/**
 * What a binary prints before its kit loads (src/kit/runtime/built-in-answers.ts): `--describe` off a
 * terminal, `--help` and `--version`, each the exact bytes the tool prints in-process from the same
 * declaration (the full path), piped; `--help` inside `--help --json` too. On a terminal `--describe`
 * goes the full way (pretty-printed). A document the redactor's built-in pass would change is not
 * offered: the full path prints it, redacted.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { builtInAnswers } from "../../src/author/build/entry.ts";
import { binary, root, run } from "../helpers/bin.ts";
import { runInProcess } from "../helpers/in-process.ts";

const TOOLS = ["seo", "brain", "gate"] as const;

describe("answers built into a binary", () => {
  for (const name of TOOLS)
    test(`${name} --describe, --help and --version print what the tool prints in-process`, async () => {
      const tool = (await import(join(root, "tools", name, "tool.ts"))).default;
      for (const flag of ["--describe", "--help", "--version"]) {
        const [built, inProcess] = await Promise.all([run(binary(name), [flag]), runInProcess(tool, [flag])]);
        expect({ flag, code: built.code, stderr: built.stderr }).toEqual({ flag, code: 0, stderr: "" });
        expect(inProcess.code).toBe(0);
        expect(built.stdout).toBe(inProcess.stdout);
      }
      const json = await run(binary(name), ["--help", "--json"]);
      expect(json.json.data.help).toBe((await runInProcess(tool, ["--help"])).stdout);
    });

  test("on a terminal, --describe is the document pretty-printed, as the full path prints it", async () => {
    const tool = (await import(join(root, "tools", "gate", "tool.ts"))).default;
    // script(1) gives the binary a pseudo-terminal for stdout; what it shows comes back with CRLF line ends.
    await using p = Bun.spawn(["script", "-qec", `${binary("gate")} --describe`, "/dev/null"], {
      stdin: "ignore",
      stdout: "pipe",
      env: { ...process.env, TERM: "dumb" },
    });
    const shown = await new Response(p.stdout).text();
    expect(await p.exited).toBe(0);
    const inProcess = await runInProcess(tool, ["--describe"], { tty: true });
    expect(shown.replace(/\r\n/g, "\n")).toBe(inProcess.stdout);
  });

  test("a document holding a credential's shape is left to the full path, which redacts it", () => {
    const clean = "seo audits a site\n";
    const shaped = "seo: e.g. AKIAIOSFODNN7EXAMPLE is an access key id\n";
    const offered = builtInAnswers({ "--describe": ["describe.json", shaped], "--help": ["help.txt", clean] });
    expect(offered).toEqual([`  "--help": () => import("./help.txt", { with: { type: "text" } }),`]);
  });
});
