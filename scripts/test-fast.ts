/**
 * The fast tier: every test file that starts no process (scripts/test-files.ts),
 * in one `bun test`. No build is needed; what it does not run is what needs
 * the compiled binaries (`npm test` runs everything).
 *
 *   bun scripts/test-fast.ts [bun test flags]
 */
import { resolve } from "node:path";
import { inProcessFiles } from "./test-files.ts";

const files = inProcessFiles();
console.log(`fast tier: ${files.length} in-process test files`);
const run = Bun.spawnSync([process.execPath, "test", ...process.argv.slice(2), ...files.map((f) => `./${f}`)], {
  cwd: resolve(import.meta.dir, ".."),
  stdio: ["ignore", "inherit", "inherit"],
});
process.exit(run.exitCode ?? 1);
