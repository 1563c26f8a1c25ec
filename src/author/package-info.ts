/** The kit's own package: its version (a new tool depends on it) and its folder. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const KIT_ROOT = join(import.meta.dir, "..", "..");
const PACKAGE = JSON.parse(readFileSync(join(KIT_ROOT, "package.json"), "utf8"));
export const KIT_VERSION: string = PACKAGE.version;
/** The versions a new repository type-checks with: the kit's own. */
export const TYPESCRIPT_VERSION: string = PACKAGE.devDependencies?.typescript ?? "^5.9.0";
export const BUN_TYPES_VERSION: string = PACKAGE.devDependencies?.["@types/bun"] ?? "^1.4.5";
export const VERIFY_MAIN = join(KIT_ROOT, "verify", "main.ts");
