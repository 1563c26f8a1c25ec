/**
 * A new tool repository from the template beside this file: every file
 * rendered with the tool's name, golden cases under test/golden/<name>/.
 * Files named `*.tmpl` are the template's; `gitignore` and `github/` become
 * their dotted names (npm drops dot-files from a package's template).
 */
import {
  type Dirent,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";

const TEMPLATE = join(import.meta.dir, "template");

export interface Rendered {
  readonly path: string;
  readonly text: string;
  readonly executable: boolean;
}

const fill = (text: string, values: Readonly<Record<string, string>>): string =>
  text.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);

/** Where a template file lands in the new repository. */
function destinationOf(relative: string, name: string): string {
  const plain = relative.replace(/\.tmpl$/, "");
  if (plain === "gitignore") return ".gitignore";
  if (plain.startsWith("github/")) return `.${plain}`;
  if (plain.startsWith("test/golden/")) return `test/golden/${name}/${plain.slice("test/golden/".length)}`;
  return plain;
}

/** The new repository's files, in order, rendered for `values` (name, purpose, the kit's spec, the type-checker's versions). */
export function renderTemplate(values: {
  name: string;
  purpose: string;
  kit: string;
  typescript: string;
  typesBun: string;
}): Rendered[] {
  const files = (readdirSync(TEMPLATE, { recursive: true }) as string[]).filter((f) => f.endsWith(".tmpl")).sort();
  return files.map((f) => ({
    path: destinationOf(f, values.name),
    text: fill(readFileSync(join(TEMPLATE, f), "utf8"), values),
    executable: f.endsWith(".sh.tmpl"),
  }));
}

/**
 * Puts the files in `dir` whole or not at all: written into a sibling folder,
 * then renamed into place, so a second init racing this one finds either
 * nothing or all of it, never half. Nothing is written where they already are.
 */
export function placeRendered(dir: string, files: readonly Rendered[]): void {
  if (existsSync(dir) && readdirSync(dir).length > 0) return;
  const aside = `${dir}.init-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    for (const f of files) {
      mkdirSync(dirname(join(aside, f.path)), { recursive: true });
      writeFileSync(join(aside, f.path), f.text, { mode: f.executable ? 0o755 : 0o644 });
    }
    renameSync(aside, dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw e;
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
}

/** Whether `agent-cli-kit` resolves from `dir` as Node would: an installed copy in it or in a folder above it. */
export function kitResolvesFrom(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "node_modules", "agent-cli-kit", "package.json"))) return true;
    if (dirname(d) === d) return false;
  }
}

/**
 * A new repository never lands on someone's files: the folder is absent,
 * empty, or holds exactly what this template writes (init run again over its
 * own work changes nothing and answers the same).
 */
export function isFreeFolder(dir: string, files: readonly Rendered[]): boolean {
  if (!existsSync(dir)) return true;
  const present = (readdirSync(dir, { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((e) => !e.isDirectory())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
  const ours = new Map(files.map((f) => [f.path, f.text]));
  return present.every((p) => ours.has(p) && readFileSync(join(dir, p), "utf8") === ours.get(p));
}
