/**
 * One invocation, start to finish: argv → command → validated flags → run →
 * exactly one envelope on stdout and an exit code that agrees with it. Every
 * failure on the way, thrown or not, ends in the same envelope; nothing else
 * ever reaches stdout.
 */
import { parseFlags, splitCommandWords, type ArgvFlag, type RawFlags } from "../cli/argv.ts";
import { createContext, RunState } from "./context.ts";
import { envOf, holdsWriteCredentials, type Command } from "../declare/define.ts";
import { DOCUMENT_FLAGS, narrowDoc, type DescribeDoc, type DocumentFlag } from "../introspection/describe-doc.ts";
import { failure, success, type Envelope, type Meta } from "../output/envelope.ts";
import { asKitError, exitCodeOf, KitError, toErrorObject } from "../output/errors.ts";
import { parseFields, project } from "../cli/fields.ts";
import { UNIVERSAL_FLAGS } from "../cli/flags.ts";
import { sha256 } from "../pipeline/hash.ts";
import type { KitIO, Signal } from "./io.ts";
import { createLogger } from "../output/log.ts";
import { decodeCursor, queryFingerprint, type PageRequest } from "../lists/paginate.ts";
import { createRedactor, type Redactor } from "../identity/redact.ts";
import { resolveCommand } from "../cli/resolve.ts";
import { RunDir } from "../pipeline/run-dir.ts";
import type { CommandHead, ToolIndex, ToolSource } from "./source.ts";
import { convertFlags } from "../cli/validate.ts";

type Mode = "json" | "toon" | "text";

const UNIVERSAL_ARGV: readonly ArgvFlag[] = UNIVERSAL_FLAGS.map((f) => ({ name: f.name, kind: f.kind === "boolean" ? "boolean" : "value" }));

/** Universal switches as the command sees them. */
interface Universal {
  dryRun: boolean;
  fields?: string;
  limit?: string;
  cursor?: string;
  force: boolean;
  noInput: boolean;
  wait: boolean;
  runDir?: string;
}

function universalOf(raw: RawFlags): Universal {
  const str = (k: string) => (typeof raw[k] === "string" ? (raw[k] as string) : undefined);
  return {
    dryRun: raw["dry-run"] === true,
    fields: str("fields"),
    limit: str("limit"),
    cursor: str("cursor"),
    force: raw.force === true || raw.yes === true,
    noInput: raw["no-input"] === true,
    wait: raw.wait === true,
    runDir: str("run-dir"),
  };
}

/** contract §6: a positive integer within the command's bound; 0 is not "unbounded". */
function parseLimit(text: string | undefined, bounds: { defaultLimit: number; maxLimit: number }): number {
  if (text === undefined) return bounds.defaultLimit;
  const n = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n))
    throw new KitError("INVALID_VALUE", `--limit must be an integer (got: '${text}')`, { got: text, hint: `write --limit=${bounds.defaultLimit}` });
  if (n < 1 || n > bounds.maxLimit)
    throw new KitError("OUT_OF_RANGE", `--limit must be within 1..${bounds.maxLimit} (got: ${n})${n === 0 ? "; 0 does not mean unbounded" : ""}`, {
      allowed: { min: 1, max: bounds.maxLimit },
      got: n,
      hint: `page with --cursor instead of asking for everything`,
    });
  return n;
}

const credentialNames = (tool: ToolIndex): string[] =>
  [...(tool.env ?? []), ...tool.commands.flatMap((c) => c.env ?? [])].filter((v) => v.scope !== "config").map((v) => v.name);

export async function runTool(source: ToolSource, io: KitIO): Promise<number> {
  const started = io.now();
  const tool = source.index;
  const redact: Redactor = createRedactor(io.env, credentialNames(tool));
  const argv = io.argv;
  // Decided before parsing, so even a parse failure is reported in the mode asked for. Asked for
  // both JSON and TOON, the answer is JSON (the one an agent can always parse) saying they conflict.
  const asked = { json: argv.includes("--json"), toon: argv.includes("--toon") };
  const mode: Mode = asked.json || (!asked.toon && !io.stdoutIsTTY) ? "json" : asked.toon ? "toon" : "text";
  const colour = !io.env.NO_COLOR && io.env.TERM !== "dumb";
  const log = createLogger({ write: (s) => io.writeStderr(redact(s)), colour: colour && io.stderrIsTTY, level: 3 });
  const abort = new AbortController();

  const { words, rest } = splitCommandWords(argv, 2);
  let commandName = words.join(" ");
  let head: CommandHead | undefined;
  let state = new RunState("count");
  let runDir: RunDir | undefined;
  let emitted = false;
  let delegated = false;

  const meta = (): Meta => ({
    schema: head?.schema ?? null,
    duration_ms: Math.max(0, Math.round(io.now() - started)),
    cost_usd: round(state.costUsd),
    llm_tokens: state.llmTokens,
    pagination: state.page?.pagination ?? null,
    truncated: Boolean(state.page?.pagination.next_cursor),
    truncation_hint: state.page?.truncationHint ?? null,
    run_dir: runDir?.used ? runDir.path : null,
    outcome: {
      unit: state.outcome.unit,
      projected: state.outcome.projected,
      realized: state.outcome.realized,
      cost_usd: round(state.costUsd),
      confidence: state.outcome.confidence,
    },
  });

  const emit = async (env: Envelope): Promise<number> => {
    if (emitted) return 0;
    emitted = true;
    if (mode === "text") {
      const { renderText } = await import("../output/text.ts");
      const out = renderText(env, { colour: colour && io.stdoutIsTTY, width: io.columns });
      if (out.stdout) await io.writeStdout(redact(out.stdout));
      if (out.stderr) io.writeStderr(redact(out.stderr));
    } else if (mode === "toon") {
      const { encode } = await import("@toon-format/toon");
      await io.writeStdout(redact(`${encode(env)}\n`));
    } else {
      await io.writeStdout(redact(`${JSON.stringify(env)}\n`));
    }
    return env.error ? exitCodeOf(env.error.code) : 0;
  };

  const fail = (e: unknown): Promise<number> => {
    const err = asKitError(e);
    if (err.code === "INTERNAL" && err.cause instanceof Error) log.debug(err.cause.stack ?? err.cause.message);
    const parts = { tool: tool.name, contractVersion: tool.contractVersion, command: commandName, meta: meta() };
    return emit(failure(parts, toErrorObject(err)));
  };

  io.onSignal((signal: Signal) => {
    if (delegated) return;
    abort.abort(signal);
    void fail(new KitError("CANCELLED", `interrupted by ${signal}`, { hint: "re-run the same command; completed stages are kept in the run dir" })).then(() =>
      io.exit(130),
    );
  });

  // `--help --json`: the help text inside an envelope, for a caller that parses every answer.
  const help = async (command?: CommandHead): Promise<number> => {
    const text = await helpText(source, command);
    if (!asked.json) {
      await io.writeStdout(redact(text));
      return 0;
    }
    const usage = `${tool.name} ${command ? `${command.name} ` : "<command> "}[flags]`;
    return emit(success({ tool: tool.name, contractVersion: tool.contractVersion, command: commandName, meta: { ...meta(), schema: `${tool.name}.help@1` } }, { help: text, usage }));
  };

  try {
    if (asked.json && asked.toon)
      throw new KitError("CONFLICTING_FLAGS", "--json and --toon ask for two encodings of one envelope; give one", { got: ["--json", "--toon"], hint: "drop --toon to read JSON, or --json to read TOON" });
    if (words.length === 0 && rest.includes("--mcp")) {
      delegated = true; // stdout carries protocol frames from here on: no envelope, not even on a signal
      return await startMcp(source, io, rest);
    }
    if (words.length === 0) return await toolLevel(source, io, rest, redact, help);
    const resolved = resolveCommand(tool, words);
    head = resolved.command;
    commandName = head.name;
    state = new RunState(head.outcome ?? "count");
    const tokens = [...resolved.extra, ...rest];

    if (tokens.includes("--describe")) return await printDescribe(source, io, redact, head);
    if (tokens.includes("--help") || tokens.includes("-h")) return await help(head);

    // contract §10 scope split: only `apply` (and a declared tier-2 write, such as a gate's
    // signing) holds write credentials, nor may anything it starts. Decided before stdin
    // is read, so the child can still read --params from it.
    const withheld = holdsWriteCredentials(head) ? [] : envOf(tool, head).filter((v) => v.scope === "write" && io.env[v.name] !== undefined).map((v) => v.name);
    if (withheld.length > 0) {
      delegated = true; // the child speaks for this invocation, signals included
      return await io.respawnWithout(withheld);
    }

    const specs = head.flags;
    const own = specs.map((s): ArgvFlag => ({ name: s.name, kind: s.kind === "boolean" ? "boolean" : s.kind === "array" ? "repeatable" : "value" }));
    const known: ArgvFlag[] = [...own, ...UNIVERSAL_ARGV];
    const raw = parseFlags(tokens, known, `${tool.name} ${head.name}`);

    let flagInput: Record<string, unknown> = raw;
    let inputFrom: "argv" | "params" = "argv";
    let universalRaw: RawFlags = raw;
    if (typeof raw.params === "string") {
      const { readParamsDocument, splitParams } = await import("../cli/params.ts");
      const doc = await readParamsDocument(raw.params, io.cwd, io.readStdin);
      const split = splitParams(doc, specs.map((s) => s.name), raw);
      flagInput = split.flags;
      inputFrom = "params";
      universalRaw = { ...raw, ...split.universal };
    }
    const u = universalOf(universalRaw);
    const input = convertFlags(specs, flagInput, inputFrom);
    const fields = u.fields === undefined ? undefined : parseFields(u.fields, head.fields);
    // Only now is the command itself (its code, its checks) loaded.
    const { command, checks } = await source.load(head);
    const flags = await checks.flags(input);

    const pageRequest = pageRequestOf(command, u, flags);

    const env = scopedEnv(tool, head, io);
    runDir = new RunDir(u.runDir, io.cwd, io.tmpdir, {
      tool: tool.name,
      toolVersion: tool.version,
      stage: command.name,
      producers: new Map(tool.commands.filter((c) => c.stage).map((c) => [c.stage!.writes, c.name])),
      redact,
      now: io.now,
      flagsChecksum: () => sha256(JSON.stringify([command.name, flags])),
    });
    if (command.stage) runDir.create(); // a stage always reports its run dir, and a bad one fails before the work

    const interactive = io.stdinIsTTY && io.stderrIsTTY && !u.noInput;
    const ctx = createContext({
      flags,
      tool: { name: tool.name, version: tool.version },
      command: command.name,
      env,
      cwd: io.cwd,
      dryRun: u.dryRun,
      wait: u.wait,
      signal: abort.signal,
      log,
      runDir,
      prompts: { interactive, force: u.force, terminal: io.terminal },
      pageRequest,
      now: io.now,
      readStdin: io.readStdin,
      state,
    });

    const returned = await command.run(ctx);
    if (abort.signal.aborted) return 130;
    const checked = checks.result(returned);
    if (!checked.ok) throw new KitError("INTERNAL", `${command.name} returned data that does not match ${command.schema} at '${checked.path}': ${checked.message}`);
    const data = fields ? project(checked.data, fields) : checked.data;
    return await emit(success({ tool: tool.name, contractVersion: tool.contractVersion, command: commandName, meta: meta() }, data));
  } catch (e) {
    if (abort.signal.aborted) return 130;
    return await fail(e);
  }
}

/** Costs to 1e-8 USD: a cheap model call costs well under a thousandth of a cent. */
const round = (usd: number): number => Math.round(usd * 1e8) / 1e8;

function pageRequestOf(command: Pick<Command, "name" | "pagination">, u: Universal, flags: Record<string, unknown>): PageRequest | null {
  const bounds = command.pagination ?? { defaultLimit: 50, maxLimit: 1000 };
  const limit = parseLimit(u.limit, bounds);
  if (!command.pagination) {
    if (u.cursor !== undefined)
      throw new KitError("INVALID_CURSOR", `${command.name} returns no list, so --cursor has nothing to continue`, { got: u.cursor });
    return null;
  }
  const fingerprint = queryFingerprint(command.name, flags);
  const offset = u.cursor === undefined ? 0 : decodeCursor(u.cursor, fingerprint);
  return { limit, maxLimit: bounds.maxLimit, offset, fingerprint };
}

/** The command's environment; a required variable that is absent is a precondition failure naming it. */
function scopedEnv(tool: ToolIndex, command: CommandHead, io: KitIO): Record<string, string | undefined> {
  const env = { ...io.env };
  const declared = envOf(tool, command);
  for (const v of declared) {
    if (!v.required || (v.scope === "write" && !holdsWriteCredentials(command))) continue;
    if (!env[v.name])
      throw new KitError("MISSING_ENV", `${v.name} is not set`, {
        hint: `set ${v.name} in the environment: ${v.description}`,
        detail: { variable: v.name, scope: v.scope },
      });
  }
  return env;
}

/**
 * `<tool> --mcp [--profile full|read-only] [--toon]`: the commands over MCP
 * stdio (src/kit/bindings/mcp.ts, loaded only here). The profile and the text-block
 * format come from the flags, else AGENT_MCP_PROFILE and
 * AGENT_MCP_OUTPUT_FORMAT; an unknown one fails the start with one line on stderr.
 */
async function startMcp(source: ToolSource, io: KitIO, rest: readonly string[]): Promise<number> {
  const tool = source.index;
  const after = (flag: string) => {
    const i = rest.indexOf(flag);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const profile = after("--profile") ?? io.env.AGENT_MCP_PROFILE ?? "full";
  const format = rest.includes("--toon") ? "toon" : (io.env.AGENT_MCP_OUTPUT_FORMAT ?? "json");
  const { MCP_FORMATS, MCP_PROFILES, serveMcp } = await import("../bindings/mcp.ts");
  const refuse = (what: string, got: string, allowed: readonly string[]) => {
    io.writeStderr(`${tool.name}: unknown MCP ${what} '${got}'; one of: ${allowed.join(", ")}\n`);
    return 1;
  };
  if (!(MCP_PROFILES as readonly string[]).includes(profile)) return refuse("profile", profile, MCP_PROFILES);
  if (!(MCP_FORMATS as readonly string[]).includes(format)) return refuse("output format", format, MCP_FORMATS);
  const doc = JSON.parse(await source.describe()) as DescribeDoc;
  await serveMcp(doc, { profile: profile as (typeof MCP_PROFILES)[number], format: format as (typeof MCP_FORMATS)[number], version: tool.version });
  return 0;
}

async function toolLevel(source: ToolSource, io: KitIO, rest: readonly string[], redact: Redactor, help: () => Promise<number>): Promise<number> {
  const tool = source.index;
  if (rest.includes("--describe")) return printDescribe(source, io, redact);
  const wanted = (Object.keys(DOCUMENT_FLAGS) as DocumentFlag[]).find((f) => rest.includes(f));
  if (wanted) {
    const text = await source.document(DOCUMENT_FLAGS[wanted]);
    if (text === null) throw new KitError("NOT_FOUND", `this build of ${tool.name} carries no ${DOCUMENT_FLAGS[wanted]}`, { hint: "use a compiled binary from `npm run build`" });
    await io.writeStdout(redact(text.endsWith("\n") ? text : `${text}\n`));
    return 0;
  }
  if (rest.includes("--help") || rest.includes("-h")) return help();
  const stray = rest.find((t) => !t.startsWith("-"));
  const command = stray && tool.commands.find((c) => c.name.split(" ")[0] === stray);
  if (command)
    throw new KitError("USAGE", `the command comes first: \`${tool.name} ${command.name} ${rest.filter((t) => t !== stray).join(" ")}\``.trim(), {
      hint: `write \`${tool.name} ${command.name} [flags]\``,
    });
  parseFlags(rest, UNIVERSAL_ARGV, tool.name);
  return resolveCommand(tool, []) as never;
}

const docOf = async (source: ToolSource, command?: CommandHead): Promise<DescribeDoc> => {
  const doc = JSON.parse(await source.describe()) as DescribeDoc;
  return command ? narrowDoc(doc, command.name) : doc;
};

/** contract §9: the bare document, not an envelope; exit 0. The whole tool's, off a terminal, is printed as it was built. */
async function printDescribe(source: ToolSource, io: KitIO, redact: Redactor, command?: CommandHead): Promise<number> {
  const text = command || io.stdoutIsTTY ? JSON.stringify(await docOf(source, command), null, io.stdoutIsTTY ? 2 : undefined) : await source.describe();
  await io.writeStdout(redact(`${text}\n`));
  return 0;
}

async function helpText(source: ToolSource, command?: CommandHead): Promise<string> {
  const [doc, { toolHelp, commandHelp }] = await Promise.all([docOf(source, command), import("../introspection/help.ts")]);
  return command ? commandHelp(doc, doc.commands[0]!) : toolHelp(doc);
}
