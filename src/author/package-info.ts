/** The kit's own package: its version (a new tool depends on it) and its folder. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const KIT_ROOT = join(import.meta.dir, "..", "..");
export const KIT_VERSION: string = JSON.parse(readFileSync(join(KIT_ROOT, "package.json"), "utf8")).version;
export const VERIFY_MAIN = join(KIT_ROOT, "verify", "main.ts");
