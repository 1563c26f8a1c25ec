import { isAbsolute, relative, resolve } from "node:path";
import { KitError } from "../../../src/kit/index.ts";

/** A site-relative path inside the folder; anything reaching outside is refused. */
export function resolveInside(root: string, file: string): string {
  const full = resolve(root, file);
  const rel = relative(root, full);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) throw new KitError("INVALID_INPUT", `${file} is outside the site folder`, { got: file });
  return full;
}
