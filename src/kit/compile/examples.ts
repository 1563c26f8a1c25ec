/**
 * contract §9: an example is documentation an agent copies, so each must run.
 * Its argv is read the way the command line is (the same parser, conversion
 * and validator), and one that would be refused is a declaration mistake.
 */
import {
  checkedFlags,
  type CompiledValidators,
  convertFlags,
  type FlagSpec,
  parseFlags,
  UNIVERSAL_ARGV,
} from "../cli/index.ts";
import { type Command, DeclarationError } from "../declare/index.ts";
import { shellLine } from "../introspection/index.ts";
import { isKitError } from "../output/index.ts";

const argvKind = (s: FlagSpec) =>
  (s.kind === "boolean" ? "boolean" : s.kind === "array" ? "repeatable" : "value") as
    | "boolean"
    | "repeatable"
    | "value";

/** A stray word right after a flag's value is the rest of that value, written as two argv strings. */
function splitValueFix(argv: readonly string[], got: unknown): string | null {
  const i = typeof got === "string" ? argv.indexOf(got) : -1;
  if (i < 2 || !argv[i - 2]!.startsWith("--") || argv[i - 1]!.startsWith("-")) return null;
  return `a value of several words is one argv string: [${JSON.stringify(argv[i - 2])}, ${JSON.stringify(`${argv[i - 1]} ${got}`)}]`;
}

/** Throws the first example whose argv the command would refuse, naming it and what would fix it. */
export function checkExamples(
  tool: string,
  c: Command,
  specs: readonly FlagSpec[],
  validators: () => CompiledValidators,
  where: string,
): void {
  (c.examples ?? []).forEach((example, i) => {
    const usage = `${tool} ${c.name}`;
    try {
      const raw = parseFlags(
        example.argv,
        [...specs.map((s) => ({ name: s.name, kind: argvKind(s) })), ...UNIVERSAL_ARGV],
        usage,
      );
      checkedFlags(validators(), specs, convertFlags(specs, raw, "argv"));
    } catch (e) {
      if (!isKitError(e)) throw e;
      const fix =
        splitValueFix(example.argv, e.got) ??
        e.hint ??
        (Array.isArray(e.allowed)
          ? `use one of: ${e.allowed.join(", ")}`
          : "change argv to what the command's flags accept");
      throw new DeclarationError(
        where,
        `example ${i + 1} (\`${shellLine([tool, ...c.name.split(" "), ...example.argv])}\`) would be refused: ${e.code}: ${e.message}`,
        fix,
      );
    }
  });
}
