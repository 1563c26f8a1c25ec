/** How every MCP call runs: the command as a child of this binary, as the argv door runs it. */
import { PROGRESS_ENV, type ProgressReport, progressOf } from "../base/index.ts";
import type { Calls } from "./calls.ts";
import { doorEnv } from "../identity/index.ts";
import type { CommandAnswer, RunCommand } from "./extension.ts";

/** The answer of a call the server did not start, or whose child it stopped: CANCELLED, as the argv door says it. */
const cancelled = (): CommandAnswer => ({
  exit: 130,
  ok: false,
  data: null,
  error: {
    code: "CANCELLED",
    message: "the server is stopping (SIGTERM or SIGINT)",
    retryable: true,
    hint: "call it again on a running server",
  },
  meta: {},
});

/** The child's stderr, line by line: progress reports to `onProgress`, every other line on to the server's stderr. */
async function splitStderr(stream: ReadableStream<Uint8Array>, onProgress: (p: ProgressReport) => void): Promise<void> {
  const decoder = new TextDecoder();
  let rest = "";
  const line = (l: string) => {
    const p = progressOf(l);
    if (p) onProgress(p);
    else process.stderr.write(`${l}\n`);
  };
  for await (const chunk of stream) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop()!;
    lines.forEach(line);
  }
  if (rest) line(rest);
}

/**
 * Runs a command of this tool (or of the fleet tool `tool`) as the argv door
 * does, its input as the --params document: how every MCP call acts. The
 * child gets the server's environment (as the runtime read it) with the door
 * named; its diagnostics go to the server's stderr (stdout is protocol frames),
 * and its progress, when `onProgress` takes it, to the caller.
 * `start` is the argv that starts a tool, as the runtime that serves knows it
 * (this binary, the multicall, or a sibling binary).
 */
export const commandRunner =
  (calls: Calls, env: Readonly<Record<string, string | undefined>>, start: (tool?: string) => string[]): RunCommand =>
  (argv, o = {}) => {
    const base = start(o.tool);
    const spawn = () =>
      Bun.spawn([...base, ...argv, ...(o.input ? ["--params", "-"] : []), "--json", "--no-input"], {
        // Progress lines on stderr only when the caller takes them (runtime/progress.ts).
        env: o.onProgress ? { ...doorEnv(env, "mcp"), [PROGRESS_ENV]: "lines" } : doorEnv(env, "mcp"),
        stdin: o.input ? new Blob([JSON.stringify(o.input)]) : "ignore",
        stdout: "pipe",
        stderr: o.onProgress ? "pipe" : "inherit",
        // A group of its own: on a signal the server stops whatever the command started, too (calls.ts).
        detached: true,
      });
    return calls.child(
      spawn,
      async (child) => {
        const [out, exit] = await Promise.all([
          new Response(child.stdout as ReadableStream).text(),
          child.exited,
          o.onProgress ? splitStderr(child.stderr as ReadableStream<Uint8Array>, o.onProgress) : null,
        ]);
        try {
          const env = JSON.parse(out) as Omit<CommandAnswer, "exit">;
          return { exit, ok: env.ok, data: env.data, error: env.error, meta: env.meta };
        } catch {
          if (calls.stopping) return cancelled();
          // A tool failure, not a protocol fault: answered as the call's error.
          return {
            exit,
            ok: false,
            data: null,
            error: {
              code: "INTERNAL",
              message: `${[...argv].join(" ")} did not answer an envelope (exit ${exit})`,
              retryable: false,
            },
            meta: {},
          };
        }
      },
      cancelled,
    );
  };
