/**
 * Inside a compiled tool `zod/mini` resolves to `zod-stand-in.ts` (the
 * build's bundler plugin). The binary checks with the validators this
 * compile step generated and reads flag specs and field paths from its
 * index, so it never uses a schema: declaring one must cost nothing at
 * start-up, and the real zod costs milliseconds to load. The price is that
 * a declaration may use only the `z.` members the stand-in exports; this
 * check makes any other a build error instead of a crash in the binary.
 */
import { readFileSync } from "node:fs";
import { DeclarationError, type Tool } from "../declare/index.ts";
import * as standIn from "./zod-stand-in.ts";

/** Type-level members (`z.output<…>`, `z.ZodMiniType`) exist only for the type checker. */
const typeOnly = (name: string): boolean =>
  /^[A-Z]/.test(name) || name === "infer" || name === "input" || name === "output";

/** The `z.<member>` values `files` use where they import zod/mini (or the kit's `agent-cli-kit/schema`) as `z`, that the stand-in lacks. */
export function standInGaps(files: readonly string[]): string[] {
  const exported = new Set(Object.keys(standIn));
  const gaps = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    if (!/^import \* as z from "(?:zod\/mini|agent-cli-kit\/schema)";/m.test(text)) continue;
    for (const [, member] of text.matchAll(/\bz\.([A-Za-z_$][\w$]*)/g))
      if (!typeOnly(member!) && !exported.has(member!)) gaps.add(`z.${member} (${file})`);
  }
  return [...gaps].sort();
}

/** What to declare instead of a zod member the kit does not carry, for the members an author reaches for. */
const INSTEAD: Readonly<Record<string, string>> = {
  date: "for a date declare z.iso.date() or z.iso.datetime() (an ISO 8601 string)",
  bigint: "for a large whole number declare z.int() or a string of digits",
  map: "for a map declare z.record(z.string(), …)",
  set: "for a set declare z.array(…)",
};

/** The members a declaration may use in a compiled tool: the stand-in's schema builders. */
export const SUPPORTED_MEMBERS: readonly string[] = Object.keys(standIn)
  .filter((k) => k !== "globalRegistry" && k !== "toJSONSchema")
  .map((k) => `z.${k.replace(/^_/, "")}`)
  .sort();

/**
 * A member the stand-in lacks is a limit of the kit, said as one: what the
 * kit supports and what to use instead, never an edit to the kit's source.
 */
export function checkStandIn(tool: Pick<Tool, "name">, files: readonly string[]): void {
  const gaps = standInGaps(files);
  if (gaps.length === 0) return;
  const member = gaps[0]!.match(/^z\.(\w+)/)![1]!;
  throw new DeclarationError(
    `tool ${tool.name}`,
    `${gaps.join(", ")} ${gaps.length === 1 ? "is" : "are"} not among the zod members a compiled tool can declare with`,
    `${INSTEAD[member] ?? "declare the value with a supported member, or do the work in run()"}; the members the kit supports are ${SUPPORTED_MEMBERS.join(", ")}`,
  );
}
