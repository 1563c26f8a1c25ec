/**
 * Builds what a command's `run` receives (its interface, CommandContext, is
 * declared beside the command in declare/context.ts). Streams, environment
 * and clock arrive here from the entry point; commands never read `process`.
 */
import type { ContextUniversal } from "../cli/index.ts";
import type { CommandContext } from "../declare/index.ts";
import type { Credentials, Redactor } from "../identity/index.ts";
import { type CutPage, type Page, type PageRequest, paginate } from "../lists/index.ts";
import { KitError, type Logger } from "../output/index.ts";
import type { RunDir } from "../pipeline/index.ts";
import { ask, confirm, type PromptPolicy } from "./prompt.ts";
import type { RunState } from "./run-state.ts";

// Named here too, where it is built, for code that takes it from the runtime.
export type { CommandContext } from "../declare/index.ts";

export interface ContextParts<F> {
  readonly flags: F;
  readonly tool: { name: string; version: string };
  readonly command: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly universal: ContextUniversal;
  readonly signal: AbortSignal;
  readonly log: Logger;
  readonly redact: Redactor;
  readonly runDir: RunDir;
  readonly prompts: PromptPolicy;
  readonly pageRequest: PageRequest | null;
  readonly now: () => number;
  readonly readStdin: () => Promise<string>;
  readonly state: RunState;
  /** Where ctx.progress goes (progress.ts). */
  readonly progress: CommandContext<unknown>["progress"];
  readonly credentials: Credentials;
  /** The secrets out the command declares, and how a newly issued one is masked from then on. */
  readonly secretsOut: readonly string[];
  readonly maskFromNow: (value: string) => void;
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
    holdsSecret: (text) => p.redact.holds(text),
    runDir: p.runDir,
    interactive: p.prompts.interactive,
    now: p.now,
    page: p.pageRequest ? { offset: p.pageRequest.offset, limit: p.pageRequest.limit } : null,
    paginate<T>(items: readonly T[] | CutPage<T>, noun?: string, also?: string): T[] {
      if (!p.pageRequest) throw new KitError("INTERNAL", `${p.command} returns a page but declares no list bounds`);
      if (state.page) throw new KitError("INTERNAL", `${p.command} paginated twice`);
      const page = paginate(items, p.pageRequest, noun, also);
      state.page = page as Page<unknown>;
      return page.items;
    },
    next(command, order = "first") {
      const list = order === "first" ? state.next : state.nextLast;
      if (!list.includes(command)) list.push(command);
    },
    truncated(hint) {
      state.truncationHint = hint;
    },
    addCost({ usd = 0, tokens = 0 }) {
      state.costUsd += usd;
      state.llmTokens += tokens;
    },
    setOutcome(outcome) {
      state.outcome = { ...state.outcome, ...outcome };
    },
    progress: p.progress,
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
    secretOut: secretOutOf(p),
  };
}

/** A declared secret handed back once, masked in everything written after it. */
function secretOutOf<F>(p: ContextParts<F>): CommandContext<F>["secretOut"] {
  return (name, value) => {
    if (!p.secretsOut.includes(name))
      throw new KitError(
        "INTERNAL",
        `${p.command} returns a secret as ${name}, which it does not declare in secretsOut`,
        { hint: "declare secretsOut: [{ name, description }] on the command" },
      );
    p.maskFromNow(value);
    p.state.secretsOut = { ...p.state.secretsOut, [name]: value };
  };
}
