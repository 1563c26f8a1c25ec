/**
 * Inside a compiled tool `zod/mini` resolves to `zod-stand-in.ts` (the
 * build's bundler plugin). The binary checks with the validators this
 * compile step generated and reads flag specs and field paths from its
 * index, so it never uses a schema: declaring one must cost nothing at
 * start-up, and the real zod costs milliseconds to load. The price is that
 * the stand-in must export every `z.` member a declaration uses; this check
 * makes a missing one a build error instead of a crash in the binary.
 */
import { readFileSync } from "node:fs";
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
