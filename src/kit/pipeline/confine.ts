/**
 * Trust boundaries (contract §8): a tool acts only inside the root it was
 * given. A path is checked twice: lexically (no `..` out of the root), and
 * once symlinks are resolved (no link, in the file or any folder above it,
 * that leads out of the root).
 */
import { fs } from "../base/index.ts";
import { KitError } from "../output/index.ts";
import { resolvePath, resolveWithin } from "./paths.ts";

const inside = (root: string, path: string): boolean =>
  path === root || path.startsWith(root === "/" ? "/" : `${root}/`);

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;

/**
 * Each root's real path, resolved once per process: a path is confined to
 * where its root was when first used, or where an approval says it is
 * (pinRoot). A root swapped for a link later only makes its files' real
 * paths fall outside, and so be refused.
 */
const realRoots = new Map<string, string>();

/** Confines paths under `root` to `real` from now on: apply pins a plan's root to the real path its approval signed. */
export const pinRoot = (root: string, real: string): void => void realRoots.set(root, real);

function realRootOf(root: string, what: string): string {
  let real = realRoots.get(root);
  if (real !== undefined) return real;
  try {
    real = fs().realpathSync(root);
  } catch (e) {
    throw new KitError("INVALID_INPUT", `${what} ${root} cannot be read: ${errno(e) ?? (e as Error).message}`, {
      got: root,
    });
  }
  realRoots.set(root, real);
  return real;
}

/** The real path of `rel` under `root`, refused (PRECONDITION_FAILED) when it leads out of the root's real path. A file that does not exist yet is judged by its nearest existing folder. */
export function confinedPath(root: string, rel: string, what: string): string {
  const lexical = resolveWithin(root, rel, what);
  const realRoot = realRootOf(root, what);
  let path = lexical;
  const missing: string[] = [];
  for (;;) {
    try {
      const real = `${fs().realpathSync(path)}${missing.length ? `/${missing.reverse().join("/")}` : ""}`;
      if (!inside(realRoot, real))
        throw new KitError("PRECONDITION_FAILED", `${rel} leads out of ${what} through a symbolic link (to ${real})`, {
          got: rel,
          hint: "a tool never follows a link out of its root; replace the link with the file itself",
        });
      return real;
    } catch (e) {
      if (e instanceof KitError) throw e;
      if (errno(e) === "ELOOP")
        throw new KitError("PRECONDITION_FAILED", `${rel} is a symbolic link loop`, { got: rel });
      if (errno(e) !== "ENOENT" && errno(e) !== "ENOTDIR") throw e;
      const parent = resolvePath(path, "..");
      if (parent === path || !inside(resolvePath(root), parent)) return lexical;
      missing.push(path.slice(parent.length + (parent === "/" ? 0 : 1)));
      path = parent;
    }
  }
}
