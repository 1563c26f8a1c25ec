/**
 * One invocation, start to finish, as named stages:
 *
 *   parse → resolve → scope credentials → validate → run → check result → project → emit
 *
 * Every failure on the way, thrown or not, ends in the same envelope;
 * nothing else ever reaches stdout.
 */
import { parseFields, readCommandFlags, resolveCommand, splitCommandWords } from "../cli/index.ts";
import { DOOR_ENV, personOnly, withheldFrom } from "../identity/index.ts";
import { KitError } from "../output/index.ts";
import { Invocation } from "./invocation.ts";
import type { KitIO } from "./io.ts";
import type { ToolSource } from "./source.ts";

export async function runTool(source: ToolSource, io: KitIO): Promise<number> {
  const { words, rest } = splitCommandWords(io.argv, 2);
  const inv = new Invocation(source, io, words);
  io.onSignal((signal) => inv.cancel(signal));
  try {
    if (inv.early.json && inv.early.toon)
      throw new KitError("CONFLICTING_FLAGS", "--json and --toon ask for two encodings of one envelope; give one", {
        got: ["--json", "--toon"],
        hint: "drop --toon to read JSON, or --json to read TOON",
      });
    if (words.length === 0) return await (await import("./tool-level.ts")).toolLevel(inv, rest);
    return await runCommand(inv, words, rest);
  } catch (e) {
    return inv.abort.signal.aborted ? 130 : await inv.fail(e);
  }
}

/** resolve, then what the command's flags ask for: its document, its help, or a run. */
async function runCommand(inv: Invocation, words: readonly string[], rest: readonly string[]): Promise<number> {
  const resolved = resolveCommand(inv.tool, words);
  const head = resolved.command;
  inv.commandIs(head);
  if (inv.early.describe) return (await import("./tool-level.ts")).printDescribe(inv, head);
  if (inv.early.help) return (await import("./tool-level.ts")).printHelp(inv, head);
  const door = inv.io.env[DOOR_ENV];
  if (head.person && door) throw personOnly(inv.tool.name, head.name, door);
  // contract §10 scope split: a process whose phase may not hold a write credential runs
  // without it, nor may anything it starts. Decided before stdin is read, so the child can
  // still read --params from it.
  const withheld = withheldFrom(inv.tool, head, inv.io.env);
  if (withheld.length > 0) {
    inv.delegated = true; // the child speaks for this invocation, signals included
    return inv.io.respawnWithout(withheld);
  }
  const { input, universal } = await readCommandFlags(
    [...resolved.extra, ...rest],
    head.flags,
    `${inv.tool.name} ${head.name}`,
    inv.io,
  );
  const fields = universal.fields === undefined ? undefined : parseFields(universal.fields, head.fields);
  // Only now is the command itself (its code, its validators) loaded; and once its flags pass them, what runs it
  // (the run dir, credentials, the context, progress): an answer that stops at a usage error never loads either.
  const { command, checks } = await inv.source.load(head);
  const flags = await checks.flags(input);
  const { runChecked } = await import("./execute.ts");
  return runChecked(inv, head, command, checks, { flags, universal, fields });
}
