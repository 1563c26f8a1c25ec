/**
 * meta.next: what a caller would run after a success. The pipeline gives
 * most of it (contract §7): the stages that read what this command wrote and
 * find everything they read in the run dir. A command adds its own lines
 * (`gate review --plan …` after a plan) as templates.
 */
import { fs } from "../base/index.ts";

interface Stage {
  readonly name: string;
  readonly stage?: { readonly writes: string; readonly reads?: readonly string[] };
  readonly next?: readonly string[];
}

export function nextCommands(
  tool: { readonly name: string; readonly commands: readonly Stage[] },
  command: Stage,
  runDir: string | null,
  flags: Readonly<Record<string, unknown>>,
): string[] {
  const filled = (template: string): string | null => {
    let missing = false;
    const line = template.replace(/\{(tool|run_dir|flag:[a-zA-Z]+)\}/g, (_, key: string) => {
      const value = key === "tool" ? tool.name : key === "run_dir" ? runDir : flags[key.slice(5)];
      if (typeof value !== "string" || value === "") missing = true;
      return String(value);
    });
    return missing ? null : line;
  };
  const declared = (command.next ?? []).map(filled).filter((l): l is string => l !== null);
  const writes = command.stage?.writes;
  if (!writes || runDir === null) return declared;
  const ready = (reads: readonly string[]) =>
    reads.every((r) => r === writes || fs().existsSync(`${runDir}/${r}.json`));
  const readers = tool.commands.filter((c) => c.stage?.reads?.includes(writes) && ready(c.stage.reads));
  return [...readers.map((c) => `${tool.name} ${c.name} --run-dir ${runDir}`), ...declared];
}
