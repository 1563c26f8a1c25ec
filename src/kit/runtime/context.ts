/**
 * What a command's `run` receives: its validated flags, the universal
 * switches, the scoped environment, the run dir, and the few helpers that
 * feed the envelope's `meta` (pages, cost, outcome). Streams, environment and
 * clock arrive here from the entry point; commands never read `process`.
 */
import type { Outcome, OutcomeUnit } from "../output/envelope.ts";
import { KitError } from "../output/errors.ts";
import type { Logger } from "../output/log.ts";
import { type CutPage, paginate, type Page, type PageRequest } from "../lists/paginate.ts";
import { ask, confirm, type PromptPolicy } from "./prompt.ts";
import type { RunDir } from "../pipeline/run-dir.ts";
import type { Credential, Credentials } from "../identity/credential.ts";
import type { ContextUniversal } from "../cli/flags.ts";

/** The universal values it carries (`dryRun`, `force`, `wait`, …) are those the flag table marks for the context. */
export interface CommandContext<F> extends ContextUniversal {
  readonly flags: F;
  readonly tool: { readonly name: string; readonly version: string };
  /** The command's words, e.g. `page list`. */
  readonly command: string;
  /** The environment, less the credentials this command's phase may not hold (contract §10). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on SIGINT/SIGTERM; pass it to fetch and long loops. */
  readonly signal: AbortSignal;
  /** Diagnostics on stderr, redacted. */
  readonly log: Logger;
  /**
   * The redactor every emitted byte passes through. Text a command shortens
   * (an upstream's answer, a snippet) is redacted first, then cut: a secret
   * cut in half no longer matches, and its other half would leave unmasked.
   */
  redact(text: string): string;
  readonly runDir: RunDir;
  /** Whether a person could answer a prompt. */
  readonly interactive: boolean;
  now(): number;
  /**
   * The window of the list this command is asked for (contract §6): a command
   * that reads its list from a store cuts this page itself and passes
   * `{ total, items }` to paginate. Null for a command that returns no list.
   */
  readonly page: { readonly offset: number; readonly limit: number } | null;
  /** Bounds a list (contract §6): returns this page's items and fills meta.pagination. */
  paginate<T>(items: readonly T[] | CutPage<T>, noun?: string): T[];
  /** Adds to meta.cost_usd and meta.llm_tokens. */
  addCost(cost: { usd?: number; tokens?: number }): void;
  /** Fills meta.outcome (contract §11). */
  setOutcome(outcome: Partial<Omit<Outcome, "cost_usd">>): void;
  /**
   * Progress of long work, for a person at a terminal: a line on stderr at
   * most every half second, and the last one. Off a terminal it says nothing.
   */
  progress(label: string, done: number, total?: number): void;
  /** What the command has done so far: the `detail` of its CANCELLED error if a signal stops it. */
  checkpoint(detail: Record<string, unknown>): void;
  /**
   * On a signal, CANCELLED waits for this (a command that must leave a record
   * first), `boundMs` at most when given (a process told to stop has 2 s);
   * a second signal does not wait.
   */
  windDown(work: Promise<unknown>, boundMs?: number): void;
  /** A confirmation a human would give; --yes gives it in advance. */
  confirm(question: string): Promise<void>;
  /** A value a human would type; INPUT_REQUIRED when nobody can. */
  ask(flag: string, question: string, choices?: readonly string[]): Promise<string>;
  readStdin(): Promise<string>;
  /**
   * A credential the command or tool declares (contract §10): its token,
   * refreshed before it expires, and `fetch` for a service bound to it
   * (a 401 refreshes once; a second is AUTH_FAILED).
   */
  credential(name: string): Credential;
  /**
   * A register-once secret a service just issued (contract §10): returned in
   * `meta.secrets_out` under a name the command declares (`secretsOut`),
   * intact on stdout only; masked from now on everywhere else.
   */
  secretOut(name: string, value: string): void;
}

/** The parts of `meta` a command's run contributes. */
export class RunState {
  costUsd = 0;
  llmTokens = 0;
  page: Page<unknown> | null = null;
  next: string[] = [];
  /** Reported with CANCELLED if a signal stops the command. */
  checkpoint: Record<string, unknown> | null = null;
  /** What a cancellation waits for before it answers, and for how long at most (null: as long as it takes). */
  windDown: Promise<unknown> | null = null;
  windDownMs: number | null = null;
  /** Register-once secrets issued during the run, by the name they are declared under. */
  secretsOut: Record<string, string> | null = null;
  outcome: Omit<Outcome, "cost_usd">;

  constructor(unit: OutcomeUnit) {
    this.outcome = { unit, projected: null, realized: null, confidence: null };
  }
}

export interface ContextParts<F> {
  readonly flags: F;
  readonly tool: { name: string; version: string };
  readonly command: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly universal: ContextUniversal;
  readonly signal: AbortSignal;
  readonly log: Logger;
  readonly redact: (text: string) => string;
  readonly runDir: RunDir;
  readonly prompts: PromptPolicy;
  readonly pageRequest: PageRequest | null;
  readonly now: () => number;
  readonly readStdin: () => Promise<string>;
  readonly state: RunState;
  /** stderr is a terminal: progress is shown. */
  readonly showProgress: boolean;
  readonly credentials: Credentials;
  /** The secrets out the command declares, and how a newly issued one is masked from then on. */
  readonly secretsOut: readonly string[];
  readonly maskFromNow: (value: string) => void;
}

const PROGRESS_EVERY_MS = 500;

/** Progress lines for a person: throttled, the last always shown; nothing at all when nobody is watching. */
function progressLine(log: Logger, now: () => number, on: boolean): CommandContext<unknown>["progress"] {
  if (!on) return () => {};
  let last = Number.NEGATIVE_INFINITY;
  return (label, done, total) => {
    const final = total !== undefined && done >= total;
    if (!final && now() - last < PROGRESS_EVERY_MS) return;
    last = now();
    log.info(`${label}: ${done}${total === undefined ? "" : ` of ${total}`}`);
  };
}

export function createContext<F>(p: ContextParts<F>): CommandContext<F> {
  const { state } = p;
  return {
    flags: p.flags,
    tool: p.tool,
    command: p.command,
    env: p.env,
    cwd: p.cwd,
    ...p.universal,
    signal: p.signal,
    log: p.log,
    redact: p.redact,
    runDir: p.runDir,
    interactive: p.prompts.interactive,
    now: p.now,
    page: p.pageRequest ? { offset: p.pageRequest.offset, limit: p.pageRequest.limit } : null,
    paginate<T>(items: readonly T[] | CutPage<T>, noun?: string): T[] {
      if (!p.pageRequest) throw new KitError("INTERNAL", `${p.command} returns a page but declares no list bounds`);
      if (state.page) throw new KitError("INTERNAL", `${p.command} paginated twice`);
      const page = paginate(items, p.pageRequest, noun);
      state.page = page as Page<unknown>;
      return page.items;
    },
    addCost({ usd = 0, tokens = 0 }) {
      state.costUsd += usd;
      state.llmTokens += tokens;
    },
    setOutcome(outcome) {
      state.outcome = { ...state.outcome, ...outcome };
    },
    progress: progressLine(p.log, p.now, p.showProgress),
    checkpoint(detail) {
      state.checkpoint = detail;
    },
    windDown(work, boundMs) {
      state.windDown = work;
      state.windDownMs = boundMs ?? null;
    },
    confirm: (question) => confirm(p.prompts, question),
    ask: (flag, question, choices) => ask(p.prompts, flag, question, choices),
    readStdin: p.readStdin,
    credential: (name) => p.credentials.get(name),
    secretOut(name, value) {
      if (!p.secretsOut.includes(name))
        throw new KitError(
          "INTERNAL",
          `${p.command} returns a secret as ${name}, which it does not declare in secretsOut`,
          { hint: "declare secretsOut: [{ name, description }] on the command" },
        );
      p.maskFromNow(value);
      state.secretsOut = { ...state.secretsOut, [name]: value };
    },
  };
}
