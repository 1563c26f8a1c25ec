/** The TypeScript files under a folder, sorted: what the build's stand-in check and the layout rules read. */
import { readdirSync } from "node:fs";
import { join } from "node:path";

export const sourcesUnder = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(dir, f))
    .sort();
