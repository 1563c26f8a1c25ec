/**
 * What a command's `run` receives: its validated flags, the universal
 * switches, the scoped environment, the run dir, and the few helpers that
 * feed the envelope's `meta` (pages, cost, outcome). Declared here, beside
 * the command it is handed to; the runtime builds it (runtime/context.ts).
 */
import type { ContextUniversal } from "../cli/index.ts";
import type { Credential } from "../identity/index.ts";
import type { CutPage } from "../lists/index.ts";
import type { Logger, Outcome } from "../output/index.ts";
import type { RunDir } from "../pipeline/index.ts";

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
  /** Whether a text holds the value of a secret this process knows, in any form the redactor knows it by. */
  holdsSecret(text: string): boolean;
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
  /**
   * Bounds a list (contract §6): returns this page's items and fills
   * meta.pagination; `also` ends the truncation hint (another way to the rest).
   */
  paginate<T>(items: readonly T[] | CutPage<T>, noun?: string, also?: string): T[];
  /** A next step this run knows of (a command line): in meta.next before the declared ones, or after them (`last`). */
  next(command: string, order?: "first" | "last"): void;
  /**
   * The answer is short of the whole for a reason other than a list's page
   * (a crawl stopped by its bound, contract §6): meta.truncated is true and
   * meta.truncation_hint says how to get the rest.
   */
  truncated(hint: string): void;
  /** Adds to meta.cost_usd and meta.llm_tokens. */
  addCost(cost: { usd?: number; tokens?: number }): void;
  /** Fills meta.outcome (contract §11). */
  setOutcome(outcome: Partial<Omit<Outcome, "cost_usd">>): void;
  /**
   * Progress of long work: for a person at a terminal, a line on stderr at
   * most every half second, and the last one (never under --json, never off
   * a terminal); for an MCP client that asked, a progress notification.
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
