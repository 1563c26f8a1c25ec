/**
 * Where a tool under test runs: a fresh folder with its own HOME, TMPDIR and
 * working directory, an environment of canary secrets and nothing inherited,
 * stdin closed, colour asked for (so a tool that ignores "not a terminal"
 * shows it), and a time limit on every run, so a hang is a finding.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
}

export interface RunResult {
  readonly run: Run;
  readonly exit: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** A bounded pool: probes run in parallel, but never more than the machine can take. */
export class Pool {
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  constructor(readonly size: number) {}

  async use<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#active >= this.size) await new Promise<void>((r) => this.#waiting.push(r));
    this.#active++;
    try {
      return await fn();
    } finally {
      this.#active--;
      this.#waiting.shift()?.();
    }
  }
}

const random = () => crypto.randomUUID().replace(/-/g, "");

const HANGS_BEFORE_SHORT_LIMIT = 2;
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

  /** Runs killed for taking too long so far. */
  #hangs = 0;

  /**
   * After a tool has hung twice it has failed noninteractive.no-hang already;
   * the rest of its probes get a short time limit, so a tool that hangs on
   * every call is judged in well under a minute, not probes × timeout.
   */
  #limitFor(run: Run): number {
    const limit = run.timeoutMs ?? this.timeoutMs;
    return this.#hangs >= HANGS_BEFORE_SHORT_LIMIT ? Math.min(limit, SHORT_LIMIT_MS) : limit;
  }

  async run(run: Run): Promise<RunResult> {
    return this.pool.use(async () => {
      const started = performance.now();
      const proc = Bun.spawn([run.program ?? this.binary, ...run.argv], {
        cwd: run.cwd ?? this.cwd,
        env: this.env(run.env),
        stdin: run.stdin === undefined ? "ignore" : new Blob([run.stdin]),
        stdout: "pipe",
        stderr: "pipe",
        timeout: this.#limitFor(run),
        killSignal: "SIGKILL",
      });
      const [stdout, stderr, exit] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      const result: RunResult = {
        run,
        exit: proc.signalCode ? null : exit,
        signal: proc.signalCode === null ? null : String(proc.signalCode),
        timedOut: proc.signalCode === "SIGKILL",
        stdout,
        stderr,
        ms: performance.now() - started,
      };
      if (result.timedOut) this.#hangs++;
      this.results.push(result);
      return result;
    });
  }

  /** Every file under a folder, with its size and modification time: enough to see a write. */
  static snapshot(dir: string, skip: (path: string) => boolean = () => false): Map<string, string> {
    const out = new Map<string, string>();
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (skip(p)) continue;
        if (e.isDirectory()) walk(p);
        else {
          const st = statSync(p);
          out.set(p, `${st.size}:${st.mtimeMs}:${Bun.hash(readFileSync(p)).toString(36)}`);
        }
      }
    };
    walk(dir);
    return out;
  }

  /** Every file the tool could have written to, as text, for the canary scan. */
  writtenFiles(): { path: string; text: string }[] {
    return [...Sandbox.snapshot(this.root).keys()].map((path) => ({ path, text: readFileSync(path, "latin1") }));
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
