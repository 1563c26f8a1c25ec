/**
 * Where a tool under test runs: a fresh folder with its own HOME, TMPDIR and
 * working directory, an environment of canary secrets and nothing inherited,
 * stdin a pipe verify watches (a read from it shows, a wait on it is a
 * hang), colour asked for (so a tool that ignores "not a terminal" shows it),
 * and a time limit on every run, so a hang is a finding. Each run is its own
 * process group, killed whole at the time limit and when the tool exits (with
 * any process that left it, found by the run's mark: process.ts), and
 * its output is read with a bound: nothing a tool leaves behind can hang verify.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { snapshot } from "./files.ts";
import type { Pool } from "./pool.ts";
import { type BoundedRead, killGroup, RUN_MARK, readBounded, reap, StdinWatch, type WatchedStdin } from "./process.ts";
import { onTerminal, readTerminal, type TerminalSeen } from "./terminal.ts";

export interface Run {
  /** What the run was for, e.g. "unknown flag"; shown in evidence. */
  readonly label: string;
  readonly argv: readonly string[];
  readonly stdin?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly timeoutMs?: number;
  /** Another binary than the one under test (a golden case's setup step may drive a sibling tool). */
  readonly program?: string;
  /** stdin and stderr on a pseudo-terminal (terminal.ts), stdout still a pipe: for probes where a terminal is the point. */
  readonly terminal?: { readonly python: string };
  /** A slot only when no other run waits for one (pool.ts): fuzzed runs, judged after the probes. */
  readonly background?: boolean;
}

export interface RunResult {
  readonly run: Run;
  readonly exit: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /**
   * Killed at the short limit a tool gets once it has hung twice: verify cut
   * it off, the tool may well have answered in time. No evidence of anything.
   */
  readonly cutShort: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** Bytes the tool took from the stdin verify watches (0 when verify gave it stdin to read). */
  readonly stdinRead: number;
  /** Whether the tool exited leaving a process of its own running, or its stdout/stderr held open. */
  readonly leftover: boolean;
  /** On a terminal: what the tool took from it and wrote to it; null off a terminal. */
  readonly terminal: TerminalSeen | null;
}

const random = () => crypto.randomUUID().replace(/-/g, "");

const HANGS_BEFORE_SHORT_LIMIT = 2;

/**
 * Both streams read to their end, or null once the grace is over (only a
 * process that left the group can hold them), the reads then cancelled. A
 * cleared timer, not a sleep: a pending one would keep verify alive after its last run.
 */
async function settled(out: BoundedRead, err: BoundedRead): Promise<[string, string] | null> {
  let grace: Timer | undefined;
  const streams = await Promise.race([
    Promise.all([out.text, err.text]),
    new Promise<null>((r) => (grace = setTimeout(() => r(null), STREAM_GRACE_MS))),
  ]);
  clearTimeout(grace);
  if (!streams) {
    out.cancel();
    err.cancel();
  }
  return streams;
}
/** How long output may stay open once the tool's whole process group is dead (only a process that left the group can hold it). */
const STREAM_GRACE_MS = 2000;
const SHORT_LIMIT_MS = 500;

export class Sandbox {
  readonly root: string;
  readonly home: string;
  readonly tmp: string;
  readonly cwd: string;
  /** Secrets planted in the environment; none may ever come back out. */
  readonly canaries: Readonly<Record<string, string>>;
  readonly results: RunResult[] = [];

  constructor(
    readonly binary: string,
    readonly pool: Pool,
    credentialEnv: readonly string[],
    readonly timeoutMs: number,
  ) {
    this.root = mkdtempSync(join(tmpdir(), "verify-"));
    this.home = join(this.root, "home");
    this.tmp = join(this.root, "tmp");
    this.cwd = join(this.root, "cwd");
    for (const d of [this.home, this.tmp, this.cwd]) mkdirSync(d);
    // Outside the root: the file scans below must never open a FIFO.
    this.#stdin = new StdinWatch(mkdtempSync(join(tmpdir(), "verify-stdin-")));
    const canaries: Record<string, string> = {
      VERIFY_CANARY_TOKEN: `canary-${random()}`,
      VERIFY_CANARY_PASSWORD: `canary-${random()}`,
      OPENAI_API_KEY: `sk-canary${random()}`,
      GITHUB_TOKEN: `ghp_canary${random()}`,
      AWS_SECRET_ACCESS_KEY: `canary${random()}`,
    };
    for (const name of credentialEnv) canaries[name] ??= `canary-${random()}`;
    this.canaries = canaries;
  }

  env(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
    return {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: this.home,
      TMPDIR: this.tmp,
      LANG: "C.UTF-8",
      // Asking for colour: a tool must still print none when stdout is not a terminal.
      FORCE_COLOR: "1",
      CLICOLOR_FORCE: "1",
      TERM: "xterm-256color",
      ...this.canaries,
      ...extra,
    };
  }

  /** A fresh folder inside the sandbox. */
  dir(prefix: string): string {
    return mkdtempSync(join(this.tmp, `${prefix}-`));
  }

  readonly #stdin: StdinWatch;

  /** Runs killed for taking too long so far: the probes', and the background runs' (fuzz.ts), which never shorten a probe. */
  #hangs = 0;
  #backgroundHangs = 0;

  /** Probes killed at the short limit so far: what they would have shown was never seen. */
  get cutShortRuns(): number {
    return this.results.filter((r) => r.cutShort && !r.run.background).length;
  }

  /**
   * After a tool has hung twice (noninteractive.no-hang's finding, or
   * noninteractive.tty's on a terminal) the rest of its probes get a short
   * time limit, so a tool that hangs on every call is judged in well under a
   * minute, not probes × timeout. What that limit cuts off is no evidence.
   */
  #limitFor(run: Run): { ms: number; short: boolean } {
    const limit = run.timeoutMs ?? this.timeoutMs;
    const hangs = run.background ? this.#hangs + this.#backgroundHangs : this.#hangs;
    const short = hangs >= HANGS_BEFORE_SHORT_LIMIT && SHORT_LIMIT_MS < limit;
    return { ms: short ? SHORT_LIMIT_MS : limit, short };
  }

  /** The tool started in a process group of its own: directly, or on a pty through the terminal helper. */
  #spawn(
    run: Run,
    mark: string,
  ): {
    proc: Bun.Subprocess<number | Blob, "pipe", "pipe">;
    stdin: WatchedStdin | null;
    tty: string | null;
  } {
    const tty = run.terminal ? join(this.#stdin.dir, `tty-${random()}`) : null;
    const stdin = run.stdin === undefined && !tty ? this.#stdin.open() : null;
    const binary = run.program ?? this.binary;
    const proc = Bun.spawn(tty ? onTerminal(run.terminal!.python, tty, binary, run.argv) : [binary, ...run.argv], {
      cwd: run.cwd ?? this.cwd,
      env: this.env({ ...run.env, [RUN_MARK]: mark }),
      stdin: stdin ? stdin.fd : new Blob([run.stdin ?? ""]),
      stdout: "pipe",
      stderr: "pipe",
      // Its own process group (setsid): the tool and everything it starts are killed as one.
      detached: true,
    });
    stdin?.handedOver();
    return { proc, stdin, tty };
  }

  async run(run: Run): Promise<RunResult> {
    return this.pool.use(async () => {
      const started = performance.now();
      const mark = random();
      const { proc, stdin, tty } = this.#spawn(run, mark);
      const group = proc.pid;
      let timedOut = false;
      const limit = this.#limitFor(run);
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(group);
      }, limit.ms);
      const out = readBounded(proc.stdout);
      const err = readBounded(proc.stderr);
      const exit = await proc.exited;
      clearTimeout(timer);
      // Whatever the tool left running, in its group or not, is a finding, and is killed: a caller reading its output to the end would wait for it.
      const leftover = await reap(group, mark, timedOut);
      const streams = await settled(out, err);
      const [stdout, stderr] = streams ?? [out.sofar(), err.sofar()];
      const result: RunResult = {
        run,
        exit: proc.signalCode ? null : exit,
        signal: proc.signalCode === null ? null : String(proc.signalCode),
        timedOut,
        cutShort: timedOut && limit.short,
        stdout,
        stderr,
        ms: performance.now() - started,
        stdinRead: stdin ? stdin.consumed(!leftover && streams !== null) : 0,
        leftover: leftover || !streams,
        terminal: tty ? readTerminal(tty) : null,
      };
      if (tty) rmSync(tty, { force: true });
      if (result.timedOut && !result.cutShort) run.background ? this.#backgroundHangs++ : this.#hangs++;
      this.results.push(result);
      return result;
    }, run.background);
  }

  /** Every file under a folder, fingerprinted (files.ts). */
  static snapshot = snapshot;

  /** Every file the tool could have written to, as text, for the canary scan. */
  writtenFiles(): { path: string; text: string }[] {
    return [...snapshot(this.root).keys()].map((path) => ({ path, text: readFileSync(path, "latin1") }));
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
    rmSync(this.#stdin.dir, { recursive: true, force: true });
  }
}
