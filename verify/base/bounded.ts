/**
 * contract §6: "an unbounded result blows the specialist's context window".
 * Every ok answer verify reads, of any command but a `list` (reads and
 * writes, plan, review and apply included), is held to a bound: no array in `data` longer
 * than the command's declared default limit, else the kit's default (50),
 * which the contract says the kit sets; or than the run's `--limit` where it
 * widens that.
 */
import type { RunResult } from "./sandbox.ts";
import type { CommandDoc, Envelope } from "./schemas.ts";
import type { Subject } from "./subject.ts";

/** The bound a tool that declares none is held to: the kit's default page (contract §6: "the kit sets it"). */
export const CONTRACT_DEFAULT_LIMIT = 50;

/** The default page size a command declares: the kit's pagination, or a plain `default_limit` beside its flags. */
export const declaredDefault = (c: CommandDoc): number | null => {
  const raw = c.raw as { default_limit?: unknown; pagination?: { default_limit?: unknown } };
  const n = c.pagination?.default_limit ?? raw.pagination?.default_limit ?? raw.default_limit;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : null;
};

/** The `--limit N` / `--limit=N` a run was given, when it is a whole number of at least 1. */
export const limitOf = (argv: readonly string[]): number | null => {
  const i = argv.findIndex((a) => a === "--limit" || a.startsWith("--limit="));
  if (i < 0) return null;
  const raw = argv[i]!.includes("=") ? argv[i]!.slice("--limit=".length) : argv[i + 1];
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : null;
};

/** The longest array directly in data, by its key; null when data holds none. */
export const longestArray = (data: unknown): { key: string; length: number } | null => {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return null;
  let best: { key: string; length: number } | null = null;
  for (const [key, value] of Object.entries(data))
    if (Array.isArray(value) && (best === null || value.length > best.length)) best = { key, length: value.length };
  return best;
};

/**
 * One ok answer of a command whose verb is not `list`: its longest array
 * within the run's bound. A list command's page is lists.bounded's (its
 * declared default, meta.pagination), judged on data long enough to show it.
 */
export function inspectBound(s: Subject, r: RunResult, env: Envelope, command: CommandDoc): void {
  if (command.verb === "list") return;
  const given = limitOf(r.run.argv);
  const declared = declaredDefault(command);
  const dflt = declared ?? CONTRACT_DEFAULT_LIMIT;
  // A --limit past the default widens the bound; one below it is output.limit-honoured's to judge, not a second finding.
  const bound = given !== null && given > dflt ? given : dflt;
  const longest = longestArray(env.data);
  const source =
    bound !== dflt
      ? `its --limit ${given}`
      : declared
        ? "its declared default limit"
        : "the kit's default, as it declares none";
  s.findings.expect(
    "output.bounded",
    longest === null || longest.length <= bound,
    `'${command.name}' answered data.${longest?.key} with ${longest?.length} items, past ${bound} (${source}): an unbounded answer fills an agent's context`,
    r,
  );
}
