/**
 * How a new repository names the kit in its package.json: the way this copy
 * was installed, so that `npm install` there fetches the same kit. The
 * project that installed it (the folder holding the node_modules it sits in)
 * says so in its own package.json: a `file:` spec (a tarball or a folder) is
 * rewritten relative to the new repository; a registry range or tag stays as
 * it is. A copy that is a folder of its own (a checkout, or a folder install,
 * which npm links) is named by that folder.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve } from "node:path";

const fileSpec = (from: string, to: string): string => {
  const rel = relative(from, to);
  return `file:${rel === "" ? "." : isAbsolute(rel) || rel.startsWith("..") ? rel : `./${rel}`}`;
};

/** The spec the installing project gave for the kit, or null. */
function installedAs(project: string): string | null {
  try {
    const pkg = JSON.parse(readFileSync(resolve(project, "package.json"), "utf8"));
    for (const field of ["dependencies", "devDependencies", "optionalDependencies"])
      if (typeof pkg[field]?.["agent-cli-kit"] === "string") return pkg[field]["agent-cli-kit"];
  } catch {}
  return null;
}

export function kitSpecFor(newRepo: string, kitRoot: string, version: string): string {
  const modules = dirname(kitRoot);
  if (basename(modules) !== "node_modules") return fileSpec(newRepo, kitRoot);
  const project = dirname(modules);
  const spec = installedAs(project);
  if (spec === null) return `^${version}`;
  if (spec.startsWith("file:")) return fileSpec(newRepo, resolve(project, spec.slice("file:".length)));
  return spec;
}
