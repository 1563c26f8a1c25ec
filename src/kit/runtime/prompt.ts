/**
 * Prompts, only where a person can answer (SPEC): on a terminal, without
 * --no-input. Anywhere else a prompt is an error, never a wait. The prompt
 * library is imported only when a prompt is really shown: it touches the
 * terminal streams when it loads.
 */
import { KitError } from "../output/index.ts";

export interface PromptPolicy {
  /** stdin and stderr are terminals and --no-input is absent. */
  readonly interactive: boolean;
  /** --force / --yes: the confirmation is given in advance. */
  readonly force: boolean;
  /** The terminal to prompt on; asked for only when a prompt is shown. */
  readonly terminal: () => { input: NodeJS.ReadableStream; output: NodeJS.WritableStream };
}

/** A confirmation a human would give: CONFIRMATION_REQUIRED (exit 5) when none can be asked. */
export async function confirm(policy: PromptPolicy, question: string): Promise<void> {
  if (policy.force) return;
  if (!policy.interactive)
    throw new KitError("CONFIRMATION_REQUIRED", `${question} — needs confirmation, and prompting is off`, {
      hint: "add --yes to confirm in advance (it never passes a policy gate)",
    });
  const clack = await import("@clack/prompts");
  const answer = await clack.confirm({ message: question, ...policy.terminal() } as never);
  if (clack.isCancel(answer)) throw new KitError("CANCELLED", "cancelled at the prompt");
  if (!answer) throw new KitError("CONFIRMATION_REQUIRED", `${question} — declined`, { hint: "nothing was changed" });
}

/** A value that would have been asked for: INPUT_REQUIRED (exit 2) when none can be asked. */
export async function ask(
  policy: PromptPolicy,
  flag: string,
  question: string,
  choices?: readonly string[],
): Promise<string> {
  if (!policy.interactive)
    throw new KitError("INPUT_REQUIRED", `--${flag} is needed and prompting is off`, {
      hint: choices ? `add --${flag}=${choices[0]} (one of: ${choices.join(", ")})` : `add --${flag}=VALUE`,
      ...(choices ? { allowed: [...choices] } : {}),
    });
  const clack = await import("@clack/prompts");
  const answer = choices
    ? await clack.select({
        message: question,
        options: choices.map((c) => ({ value: c, label: c })),
        ...policy.terminal(),
      } as never)
    : await clack.text({ message: question, ...policy.terminal() } as never);
  if (clack.isCancel(answer)) throw new KitError("CANCELLED", "cancelled at the prompt");
  return String(answer);
}
