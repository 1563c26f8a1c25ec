/**
 * The answers a binary carries whole, printed before the kit loads:
 * `<tool> --help`, `<tool> --version`, and `<tool> --describe` off a terminal
 * (on one it is pretty-printed), each the exact bytes the full path prints. They are an
 * agent's first calls to a tool; here they cost about a bare binary's
 * start-up. The build offers an answer only when the redactor's pass over
 * built-in text would leave it unchanged. Any other argv, a terminal the
 * runtime cannot see, or a failed write goes the full way, which answers (or
 * fails) as it always has.
 */
import { ttyBinding } from "./terminal.ts";

const FLAGS = ["--describe", "--help", "--version"] as const;

/** What the build offers: the text of `<tool> --describe`, `--help` and `--version`, loaded only when asked. */
export type BuiltInAnswers = { readonly [flag in (typeof FLAGS)[number]]?: () => Promise<{ default: string }> };

/** Whether this process's argv was answered here; false leaves everything to the full path. */
export async function answerBuiltIn(
  answers: BuiltInAnswers,
  argv: readonly string[] = process.argv.slice(2),
): Promise<boolean> {
  const [flag] = argv;
  const known = FLAGS.find((f) => f === flag);
  if (argv.length !== 1 || !known) return false;
  const load = answers[known];
  if (!load || (known === "--describe" && ttyBinding(1) !== false)) return false;
  const text = (await load()).default;
  try {
    // As tool-level.ts prints them: the document and a newline; the help text and the version line as they are.
    await Bun.write(Bun.stdout, known === "--describe" ? `${text}\n` : text);
  } catch {
    return false;
  }
  return true;
}
