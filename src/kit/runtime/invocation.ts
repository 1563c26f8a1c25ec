/**
 * One invocation's state, from its first byte of argv to its one envelope:
 * what `meta` reports, where the answer goes, and whether it has been given.
 * Every stage reads and fills this, and every way out (success, failure, a
 * signal) ends in `emit`, which answers at most once.
 */
import { earlyUniversal } from "../cli/index.ts";
import type { CommandHead, ToolIndex } from "../compile/index.ts";
import { createRedactor, type Redactor } from "../identity/index.ts";
import {
  asKitError,
  createLogger,
  type Envelope,
  emitEnvelope,
  failure,
  KitError,
  type Logger,
  type Meta,
  modeOf,
  roundUsd,
  type Sink,
  success,
  toErrorObject,
} from "../output/index.ts";
import type { RunDir } from "../pipeline/index.ts";
import { RunState } from "./run-state.ts";
import type { KitIO, Signal } from "./io.ts";
import type { ToolSource } from "./source.ts";

export class Invocation {
  readonly tool: ToolIndex;
  readonly started: number;
  readonly redact: Redactor;
  /** The flags that decide how to answer, read before anything can fail. */
  readonly early: ReturnType<typeof earlyUniversal>;
  readonly sink: Sink;
  readonly log: Logger;
  readonly abort = new AbortController();
  commandName: string;
  head: CommandHead | undefined;
  state = new RunState("count");
  runDir: RunDir | undefined;
  /** Another speaker owns stdout now (the child it respawned, the MCP server): no envelope, not even on a signal. */
  delegated = false;
  private answered = false;

  constructor(
    readonly source: ToolSource,
    readonly io: KitIO,
    words: readonly string[],
  ) {
    this.tool = source.index;
    this.started = io.now();
    this.commandName = words.join(" ");
    this.redact = createRedactor(io.env, this.tool.credentials);
    this.early = earlyUniversal(io.argv);
    const colour = !io.env.NO_COLOR && io.env.TERM !== "dumb";
    const redact = this.redact;
    this.sink = {
      mode: modeOf(this.early, io.stdoutIsTTY),
      redact,
      colour: colour && io.stdoutIsTTY,
      // Asked only when text is drawn: reading it touches process.stdout, which costs milliseconds to make.
      get width() {
        return io.columns;
      },
      writeStdout: (text) => io.writeStdout(text),
      writeStderr: (text) => io.writeStderr(text),
    };
    this.log = createLogger({ write: (s) => io.writeStderr(redact(s)), colour: colour && io.stderrIsTTY, level: 3 });
  }

  /** The command a stage has resolved: `meta.schema` and the outcome unit are its. */
  commandIs(head: CommandHead): void {
    this.head = head;
    this.commandName = head.name;
    this.state = new RunState(head.outcome ?? "count");
  }

  meta(): Meta {
    const { state } = this;
    return {
      schema: this.head?.schema ?? null,
      duration_ms: Math.max(0, Math.round(this.io.now() - this.started)),
      cost_usd: roundUsd(state.costUsd),
      llm_tokens: state.llmTokens,
      pagination: state.page?.pagination ?? null,
      truncated: Boolean(state.page?.pagination.next_cursor) || state.truncationHint !== null,
      truncation_hint: state.page?.truncationHint ?? state.truncationHint,
      run_dir: this.runDir?.used ? this.runDir.path : null,
      outcome: {
        unit: state.outcome.unit,
        projected: state.outcome.projected,
        realized: state.outcome.realized,
        cost_usd: roundUsd(state.costUsd),
        confidence: state.outcome.confidence,
      },
      next: state.next,
      ...(state.secretsOut ? { secrets_out: state.secretsOut } : {}),
    };
  }

  private parts(meta: Meta = this.meta()) {
    return { tool: this.tool.name, contractVersion: this.tool.contractVersion, command: this.commandName, meta };
  }

  /**
   * The one answer. Where stdout cannot take it (a full disk, a reader gone) the exit code and one line on
   * stderr are all that is left to say so: never a success whose answer was lost, never a stack trace.
   */
  async emit(env: Envelope): Promise<number> {
    if (this.answered) return 0;
    this.answered = true;
    try {
      return await emitEnvelope(env, this.sink);
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
      this.io.writeStderr(this.redact(`${this.tool.name}: the answer could not be written to stdout (${why})\n`));
      return 1;
    }
  }

  succeed(data: unknown, meta?: Meta): Promise<number> {
    return this.emit(success(this.parts(meta), data));
  }

  fail(e: unknown): Promise<number> {
    const err = asKitError(e);
    if (err.code === "INTERNAL" && err.cause instanceof Error) this.log.debug(err.cause.stack ?? err.cause.message);
    return this.emit(failure(this.parts(), toErrorObject(err, this.redact)));
  }

  /** SIGINT/SIGTERM: stop the command, answer CANCELLED, exit 130 (after the command's wind-down, unless signalled again). */
  cancel(signal: Signal): void {
    if (this.delegated) return;
    const again = this.abort.signal.aborted;
    this.abort.abort(signal);
    const { windDownMs } = this.state;
    let work = again ? null : this.state.windDown;
    if (work && windDownMs !== null) work = Promise.race([work, new Promise((r) => setTimeout(r, windDownMs))]);
    const answer = () => {
      const checkpoint = this.state.checkpoint;
      const err = new KitError("CANCELLED", `interrupted by ${signal}`, {
        hint: "re-run the same command; completed stages are kept in the run dir",
        ...(checkpoint ? { detail: checkpoint } : {}),
      });
      void this.fail(err).then(() => this.io.exit(130));
    };
    if (work) void work.then(answer, answer);
    else answer();
  }
}
