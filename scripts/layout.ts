/**
 * The kit's layout rules, measured: no source file in src/ over 250 lines,
 * no function in src/kit over 60 lines, no import cycle in src/ (type-only
 * and dynamic imports count: a cycle is a cycle to a reader), and every kit
 * folder with an index.ts whose header names the contract section it
 * implements. `bun scripts/layout.ts` prints the figures; the test holds them.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseSync } from "oxc-parser";
import { sourcesUnder } from "./sources.ts";

const root = join(import.meta.dir, "..");
export const MAX_FILE_LINES = 250;
export const MAX_FUNCTION_LINES = 60;

const lineAt = (text: string, offset: number): number => {
  let n = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
};

type Node = {
  type?: string;
  start: number;
  end: number;
  id?: { name?: string };
  key?: { name?: string };
  [k: string]: unknown;
};
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/** Every function in a file with its line count, named by its declaration, property or method where it has one. */
function functionsIn(file: string): { name: string; lines: number }[] {
  const text = readFileSync(file, "utf8");
  const out: { name: string; lines: number }[] = [];
  const walk = (node: unknown, name: string): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n, name);
      return;
    }
    if (!node || typeof node !== "object") return;
    const n = node as Node;
    const own =
      n.id?.name ??
      (n.type === "MethodDefinition" || n.type === "Property" || n.type === "VariableDeclarator"
        ? ((n.key ?? n.id) as { name?: string })?.name
        : undefined);
    if (n.type && FUNCTIONS.has(n.type))
      out.push({ name: own ?? name, lines: lineAt(text, n.end) - lineAt(text, n.start) + 1 });
    for (const [k, v] of Object.entries(n)) if (k !== "type" && v && typeof v === "object") walk(v, own ?? name);
  };
  walk(parseSync(file, text).program, "(anonymous)");
  return out;
}

/** Relative imports of a file, static, re-exported, type-only and dynamic alike, as absolute paths. */
function importsOf(file: string): string[] {
  const { module } = parseSync(file, readFileSync(file, "utf8"));
  const text = readFileSync(file, "utf8");
  const specs = [
    ...module.staticImports.map((i) => i.moduleRequest.value),
    ...module.staticExports.flatMap((e) => e.entries.flatMap((x) => (x.moduleRequest ? [x.moduleRequest.value] : []))),
    ...module.dynamicImports.map((d) => text.slice(d.moduleRequest.start + 1, d.moduleRequest.end - 1)),
  ];
  return specs.filter((s) => s.startsWith(".")).map((s) => resolve(dirname(file), s));
}

/** Import cycles among `files`, each as the files around it (Tarjan's strongly connected components). */
function cyclesAmong(files: readonly string[]): string[][] {
  const known = new Set(files);
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => known.has(t))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
  };
  for (const f of files) if (!index.has(f)) connect(f);
  return out;
}

export interface LayoutReport {
  readonly longFiles: { file: string; lines: number }[];
  readonly longFunctions: { file: string; name: string; lines: number }[];
  readonly cycles: string[][];
  /** Kit folders without an index.ts whose first line names a contract section (§N). */
  readonly unnamedFolders: string[];
  readonly largestFile: { file: string; lines: number };
  readonly longestFunction: { file: string; name: string; lines: number };
}

export function layoutReport(): LayoutReport {
  const src = sourcesUnder(join(root, "src"));
  const rel = (f: string) => relative(root, f);
  const sizes = src
    .map((f) => ({ file: rel(f), lines: readFileSync(f, "utf8").split("\n").length - 1 }))
    .sort((a, b) => b.lines - a.lines);
  const kit = join(root, "src", "kit");
  const fns = src
    .filter((f) => f.startsWith(kit))
    .flatMap((f) => functionsIn(f).map((fn) => ({ file: rel(f), ...fn })))
    .sort((a, b) => b.lines - a.lines);
  const folders = readdirSync(kit).filter((d) => statSync(join(kit, d)).isDirectory());
  const named = (d: string) => {
    try {
      return /§\d/.test(
        readFileSync(join(kit, d, "index.ts"), "utf8")
          .split("\n")
          .slice(0, 2)
          .join(" "),
      );
    } catch {
      return false;
    }
  };
  return {
    longFiles: sizes.filter((s) => s.lines > MAX_FILE_LINES),
    longFunctions: fns.filter((f) => f.lines > MAX_FUNCTION_LINES),
    cycles: cyclesAmong(src).map((c) => c.map(rel)),
    unnamedFolders: folders.filter((d) => !named(d)),
    largestFile: sizes[0]!,
    longestFunction: fns[0]!,
  };
}

if (import.meta.main) {
  const r = layoutReport();
  console.log(`largest file in src/: ${r.largestFile.file}, ${r.largestFile.lines} lines (limit ${MAX_FILE_LINES})`);
  console.log(
    `longest function in src/kit: ${r.longestFunction.name} in ${r.longestFunction.file}, ${r.longestFunction.lines} lines (limit ${MAX_FUNCTION_LINES})`,
  );
  for (const f of r.longFiles) console.log(`  over: ${f.file} ${f.lines} lines`);
  for (const f of r.longFunctions) console.log(`  over: ${f.name} in ${f.file}, ${f.lines} lines`);
  console.log(`import cycles in src/ (static, type-only and dynamic imports): ${r.cycles.length}`);
  for (const c of r.cycles) console.log(`  ${c.join(" ↔ ")}`);
  console.log(
    `kit folders without an index.ts naming its contract section: ${r.unnamedFolders.length ? r.unnamedFolders.join(", ") : "none"}`,
  );
  process.exitCode =
    r.longFiles.length + r.longFunctions.length + r.cycles.length + r.unnamedFolders.length > 0 ? 1 : 0;
}
