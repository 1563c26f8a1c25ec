/**
 * Finds the command the words name, or explains why there is none: the
 * valid commands in `allowed`, the nearest as `hint`, and for a forbidden
 * synonym (`ls`, `show`, `rm`, …) the canonical verb (contract §1).
 */
import { canonicalVerbFor, isForbiddenVerb } from "../base/index.ts";
import { KitError } from "../output/index.ts";
import { nearest } from "./suggest.ts";

/** What resolving reads of a command: its words. */
interface Words {
  readonly name: string;
  readonly resource?: string;
  readonly verb: string;
}

/** A tool's name and its commands' words, as the tool's index carries them. */
interface Commands<C extends Words> {
  readonly name: string;
  readonly commands: readonly C[];
  /** Commands the tool's launcher runs before the kit reads argv: valid, so listed, never resolved here. */
  readonly launched?: readonly { readonly name: string }[];
}

export interface Resolved<C extends Words> {
  readonly command: C;
  /** Words after the command's own: not part of any command, so a usage error later. */
  readonly extra: readonly string[];
}

export function resolveCommand<C extends Words>(tool: Commands<C>, words: readonly string[]): Resolved<C> {
  const names = [...tool.commands.map((c) => c.name), ...(tool.launched ?? []).map((l) => l.name)];
  const [first, second] = words;
  if (first === undefined)
    throw new KitError("UNKNOWN_COMMAND", `no command given; commands: ${names.join(", ")}`, {
      allowed: names,
      hint: `run \`${tool.name} --help\` or \`${tool.name} --describe\``,
    });

  const flat = tool.commands.find((c) => !c.resource && c.verb === first);
  if (flat) return { command: flat, extra: words.slice(1) };

  const underResource = tool.commands.filter((c) => c.resource === first);
  if (underResource.length > 0) {
    const verbs = underResource.map((c) => c.verb);
    const hit = underResource.find((c) => c.verb === second);
    if (hit) return { command: hit, extra: words.slice(2) };
    const full = underResource.map((c) => c.name);
    if (second === undefined)
      throw new KitError("UNKNOWN_COMMAND", `'${first}' needs a verb: ${verbs.join(", ")}`, {
        allowed: full,
        got: first,
        hint: `e.g. \`${tool.name} ${full[0]}\``,
      });
    throw unknown(
      tool,
      `${first} ${second}`,
      second,
      full,
      verbs.map((v) => `${first} ${v}`),
    );
  }
  return unknown(tool, first, first, names, names);
}

function unknown(
  tool: Commands<Words>,
  got: string,
  verb: string,
  allowed: readonly string[],
  candidates: readonly string[],
): never {
  const canonical = canonicalVerbFor(verb);
  const meant = canonical ? candidates.filter((c) => c.split(" ").at(-1) === canonical) : [];
  let hint: string;
  if (canonical && meant.length > 0)
    hint = `the canonical verb is '${canonical}': ${meant.map((m) => `\`${tool.name} ${m}\``).join(" or ")}`;
  else if (canonical)
    hint = `the canonical verb is '${canonical}', but ${tool.name} has no such command here; see \`${tool.name} --help\``;
  else {
    const guess = nearest(got, candidates);
    hint = guess ? `did you mean \`${tool.name} ${guess}\`?` : `run \`${tool.name} --help\` for the commands`;
  }
  const why = isForbiddenVerb(verb)
    ? `'${verb}' is not a verb in this fleet (use '${canonical}')`
    : `unknown command '${got}'`;
  throw new KitError("UNKNOWN_COMMAND", `${why}; commands: ${allowed.join(", ")}`, {
    allowed: [...allowed],
    got,
    hint,
  });
}
