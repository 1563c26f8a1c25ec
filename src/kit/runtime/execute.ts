/**
 * The run of a command whose flags passed its validators, to its answer:
 * its context (the page asked for, the environment checked, the run dir,
 * credentials, progress), the command's `run`, its result checked against
 * its schema, projected, and the next steps. Loaded only for such a run
 * (run-tool.ts): a usage error never pays for what is here.
 */
import { type Checks, contextUniversal, project, type Universal } from "../cli/index.ts";
import type { CommandHead } from "../compile/index.ts";
import type { Command } from "../declare/index.ts";
import { assertRequiredEnv, credentialsModule, type EnvVar, envOf } from "../identity/index.ts";
import { pageRequestOf } from "../lists/index.ts";
import { isKitError, KitError } from "../output/index.ts";
import { nextCommands, RunDir, sha256 } from "../pipeline/index.ts";
import { createContext } from "./context.ts";
import type { Invocation } from "./invocation.ts";
import { PROGRESS_ENV, progressChannel } from "./progress.ts";

/** What the command line asked for beyond the command's flags: the universal flags, and --fields' projection. */
interface Asked {
  readonly flags: Record<string, unknown>;
  readonly universal: Universal;
  readonly fields: string[] | undefined;
}

export async function runChecked(
  inv: Invocation,
  head: CommandHead,
  command: Command,
  checks: Checks,
  { flags, universal, fields }: Asked,
): Promise<number> {
  const returned = await execute(inv, head, command, flags, universal);
  if (inv.abort.signal.aborted) return 130;
  const data = checkResult(checks, command, returned);
  // What the run named first (the apply after an approval), the stages and declared steps, then what it named last.
  const later = nextCommands(inv.tool, head, inv.runDir?.used ? inv.runDir.path : null, flags);
  inv.state.next = [...new Set([...inv.state.next, ...later, ...inv.state.nextLast])];
  return inv.succeed(fields ? project(data, fields) : data);
}

/** The command's `run`, with its context: the page asked for, the environment checked, the run dir. */
async function execute(
  inv: Invocation,
  head: CommandHead,
  command: Command,
  flags: Record<string, unknown>,
  u: Universal,
): Promise<unknown> {
  const { io, tool } = inv;
  const listing = tool.commands.filter((c) => c.pagination).map((c) => c.name);
  const pageRequest = pageRequestOf(command, u, flags, listing);
  assertRequiredEnv(tool, head, io.env);
  const runDir = new RunDir(u.runDir, io.cwd, io.tmpdir, {
    tool: tool.name,
    toolVersion: tool.version,
    stage: command.name,
    producers: new Map(tool.commands.filter((c) => c.stage).map((c) => [c.stage!.writes, c.name])),
    redact: inv.redact,
    now: io.now,
    flagsChecksum: () => sha256(JSON.stringify([command.name, flags])),
  });
  inv.runDir = runDir;
  // contract §10: a credential dead now, or before the command's maximum duration ends, fails before any side effect.
  const credentials = (await credentialsModule()).Credentials.of(tool, head, {
    env: io.env,
    now: io.now,
    redact: inv.redact,
    signal: inv.abort.signal,
  });
  await credentials.check((command.maxDuration ?? 0) * 1000);
  if (command.stage) runDir.create(); // a stage always reports its run dir, and a bad one fails before the work
  const progress = progressOf(inv, u);
  const ctx = createContext({
    flags,
    tool: { name: tool.name, version: tool.version },
    command: command.name,
    env: { ...io.env },
    cwd: io.cwd,
    universal: contextUniversal(u),
    signal: inv.abort.signal,
    log: inv.log,
    redact: inv.redact,
    runDir,
    prompts: { interactive: io.stdinIsTTY && io.stderrIsTTY && !u.noInput, force: u.force, terminal: io.terminal },
    pageRequest,
    now: io.now,
    readStdin: io.readStdin,
    state: inv.state,
    progress: progress.report,
    credentials,
    secretsOut: (command.secretsOut ?? []).map((o) => o.name),
    maskFromNow: (value) => inv.redact.add(value),
  });
  try {
    return await command.run(ctx);
  } catch (e) {
    throw await undeclared(e, command, envOf(tool, head));
  } finally {
    progress.stop();
  }
}

/**
 * The codes --describe lists for a command are the contract's list of what it answers with: a code
 * thrown beyond them is the tool's bug, INTERNAL naming it, the original in detail. A failure of the
 * machine the kit mapped from the system (detail.errno: no space, permission denied) is not the
 * command's to declare, and passes as it is.
 */
async function undeclared(e: unknown, command: Command, env: readonly EnvVar[]): Promise<unknown> {
  if (!isKitError(e) || e.detail?.errno !== undefined) return e;
  // Loaded only on a failure: the describe module is not on the start-up path.
  const declared = (await import("../introspection/index.ts")).commandErrors(command, env);
  if (declared.includes(e.code)) return e;
  return new KitError(
    "INTERNAL",
    `${command.name} raised ${e.code}, which it does not declare (its errors: ${command.errors.join(", ") || "none"})`,
    {
      hint: `this is a bug in the tool: declare ${e.code} in the command's errors, or raise a code it declares`,
      detail: {
        undeclared: {
          code: e.code,
          message: e.message,
          ...(e.hint === undefined ? {} : { hint: e.hint }),
          ...(e.detail === undefined ? {} : { detail: e.detail }),
        },
      },
      cause: e,
    },
  );
}

/** Progress for a person at a terminal, never under --json; a door's machine lines when it asked (progress.ts). */
const progressOf = (inv: Invocation, u: Universal) =>
  progressChannel({
    terminal: inv.io.stderrIsTTY && !u.json ? inv.log : null,
    machine: inv.io.env[PROGRESS_ENV] === "lines" ? (line) => inv.io.writeStderr(inv.redact(line)) : null,
    now: inv.io.now,
  });

/** A result that breaks the command's own schema is the tool's bug: INTERNAL, naming where. */
function checkResult(checks: Checks, command: Command, returned: unknown): unknown {
  const checked = checks.result(returned);
  if (!checked.ok)
    throw new KitError(
      "INTERNAL",
      `${command.name} returned data that does not match ${command.schema} at '${checked.path}': ${checked.message}`,
    );
  return checked.data;
}
