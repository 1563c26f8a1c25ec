/**
 * A tool run in this process through the kit's seam (`runTool` over a
 * KitIO): the same stages, the same compiled validators and the same
 * envelope a binary gives, with argv, environment and streams in memory.
 * The scope split's respawn is a second in-process run without the
 * withheld variables; a signal is delivered by the test when it asks. Its
 * clock is the test's, as a test build's is: `clock-ahead:MS` in
 * AGENT_KIT_FAILPOINT sets it MS ahead (src/kit/runtime/clock.ts).
 */
import { compileTool, type CompiledTool } from "../../src/kit/compile/index.ts";
import type { Tool } from "../../src/kit/declare/define.ts";
import { clockAhead } from "../../src/kit/runtime/clock.ts";
import type { KitIO, Signal } from "../../src/kit/runtime/io.ts";
import { runTool } from "../../src/kit/runtime/run-tool.ts";
import { sourceOf } from "../../src/kit/runtime/source.ts";
import { root } from "./bin.ts";

export interface InProcessOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  cwd?: string;
  /** The temporary folder the tool is given (TMPDIR's, else /tmp). */
  tmpdir?: string;
  /** Pretend stdout is a terminal (text mode); off by default, as for an agent. */
  tty?: boolean;
  /** Deliver this signal once the command has run this long. */
  signal?: { name: Signal; afterMs: number };
}

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout as one JSON document; throws if it is not exactly that. */
  readonly json: any;
  /** How many times the tool ran: 2 when the scope split respawned it without a credential. */
  runs: number;
}

const compiled = new WeakMap<Tool, CompiledTool>();
const compiledOf = (tool: Tool): CompiledTool => {
  let c = compiled.get(tool);
  if (!c) compiled.set(tool, (c = compileTool(tool)));
  return c;
};

export async function runInProcess(
  tool: Tool,
  argv: readonly string[],
  opts: InProcessOptions = {},
): Promise<InProcessResult> {
  const out = { stdout: "", stderr: "", runs: 0 };
  let exited: (code: number) => void = () => {};
  const exit = new Promise<number>((resolve) => (exited = resolve));
  const once = (env: Record<string, string | undefined>): Promise<number> => {
    out.runs++;
    const io: KitIO = {
      argv,
      env,
      cwd: opts.cwd ?? root,
      tmpdir: opts.tmpdir ?? process.env.TMPDIR ?? "/tmp",
      stdoutIsTTY: opts.tty ?? false,
      stderrIsTTY: false,
      stdinIsTTY: false,
      columns: 100,
      writeStdout: async (text) => void (out.stdout += text),
      writeStderr: (text) => void (out.stderr += text),
      readStdin: async () => opts.stdin ?? "",
      now: clockAhead(env),
      onSignal: (handler) => {
        if (opts.signal) setTimeout(() => handler(opts.signal!.name), opts.signal.afterMs);
      },
      respawnWithout: (names) => once(Object.fromEntries(Object.entries(env).filter(([k]) => !names.includes(k)))),
      terminal: () => {
        throw new Error("no terminal in-process");
      },
      exit: (code) => {
        exited(code);
        return undefined as never;
      },
    };
    return runTool(sourceOf(tool, compiledOf(tool)), io);
  };
  const code = await Promise.race([
    once({ PATH: process.env.PATH, HOME: process.env.HOME, LANG: "C.UTF-8", ...opts.env }),
    exit,
  ]);
  return {
    code,
    ...out,
    get json() {
      const lines = out.stdout.trim().split("\n");
      if (lines.length !== 1) throw new Error(`stdout is not one JSON document: ${out.stdout.slice(0, 200)}`);
      return JSON.parse(lines[0]!);
    },
  };
}
