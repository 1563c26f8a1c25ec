/**
 * POSIX path resolution for the run dir and the folders tools confine
 * themselves to. Not node:path: its import alone costs about a millisecond
 * of every start-up that touches a run dir, and these two functions are all
 * the kit needs of it.
 */
import { KitError } from "../output/index.ts";

/** node's path.resolve on POSIX: the last absolute path, then each segment; `.` dropped, `..` climbs; no trailing slash. */
export function resolvePath(...paths: readonly string[]): string {
  let joined = "";
  for (let i = paths.length - 1; i >= 0 && !joined.startsWith("/"); i--)
    if (paths[i]) joined = joined ? `${paths[i]}/${joined}` : paths[i]!;
  if (!joined.startsWith("/")) joined = `${process.cwd()}/${joined}`;
  const parts: string[] = [];
  for (const segment of joined.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") parts.pop();
    else parts.push(segment);
  }
  return `/${parts.join("/")}`;
}

/** `relPath` under `root`; a path that would resolve to the root itself or outside it is refused. */
export function resolveWithin(root: string, relPath: string, what: string): string {
  const base = resolvePath(root);
  const full = resolvePath(base, relPath);
  if (!full.startsWith(base === "/" ? "/" : `${base}/`) || full === base)
    throw new KitError("INVALID_INPUT", `'${relPath}' is outside ${what}`, { got: relPath });
  return full;
}
