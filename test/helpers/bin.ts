/** Runs a compiled binary from dist/ as a subprocess: stdout, stderr and exit together. */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const root = join(import.meta.dir, "..", "..");
export const dist = join(root, "dist");

/** The variable the test builds read their failpoints from; a release binary never reads it. */
export const FAILPOINT = "AGENT_KIT_FAILPOINT";

const built = (path: string): string => {
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`bun run build\` first`);
  return path;
};

/** A release binary, as shipped: it never reads AGENT_KIT_FAILPOINT. */
export const binary = (name: string): string => built(join(dist, name));

/** The test build of a tool (dist/test/), the only one that honours AGENT_KIT_FAILPOINT. */
export const testBinary = (name: string): string => built(join(dist, "test", name));

/** The build a run with these variables needs: the test build when they ask for a failpoint. */
export const binaryFor = (name: string, env: Record<string, string | undefined>): string =>
  env[FAILPOINT] === undefined ? binary(name) : testBinary(name);

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as one JSON document; throws if it is not exactly that. */
  json: any;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  cwd?: string;
  /** Kill after this long; a hang is a failure, never a wait. */
  timeoutMs?: number;
}

let homes: string | null = null;

/**
 * A throwaway HOME, in one folder per process that goes when the process
 * exits: a HOME given to a binary started in the background (a racing or
 * killed apply) is never removed by its caller.
 */
function throwawayHome(): string {
  if (!homes) {
    const dir = mkdtempSync(join(tmpdir(), "homes-"));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    homes = dir;
  }
  return mkdtempSync(join(homes, "home-"));
}

/** A clean environment: no inherited secrets, a throwaway HOME, never a TTY. */
export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: throwawayHome(),
    LANG: "C.UTF-8",
    TMPDIR: tmpdir(),
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export async function run(bin: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const env = baseEnv(opts.env);
  const proc = Bun.spawn([bin, ...args], {
    env,
    cwd: opts.cwd ?? root,
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
    timeout: opts.timeoutMs ?? 60_000,
    killSignal: "SIGKILL",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (env.HOME !== opts.env?.HOME) rmSync(env.HOME!, { recursive: true, force: true });
  return {
    code,
    stdout,
    stderr,
    get json() {
      return parseOneJson(stdout);
    },
  };
}

/** Exactly one JSON value followed by one newline: nothing before it, nothing after it. */
export function parseOneJson(stdout: string): any {
  if (!stdout.endsWith("\n"))
    throw new Error(`stdout does not end with a newline: ${JSON.stringify(stdout.slice(-80))}`);
  const body = stdout.slice(0, -1);
  if (body.includes("\n")) throw new Error(`stdout has more than one line:\n${stdout.slice(0, 500)}`);
  return JSON.parse(body);
}

export const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/;
