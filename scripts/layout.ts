/**
 * The house's layout rules, measured over src/, tools/ and verify/ (tests
 * aside): no source file over 250 lines, no function over 60 lines, no
 * import cycle between files or between folders (type-only and dynamic
 * imports count: a cycle is a cycle to a reader), every kit folder with an
 * index.ts whose header names the contract section it implements, each kit
 * folder reached from outside only through that index.ts, the kit's
 * folders importing only the layers below their own (KIT_LAYERS), and the
 * features beside the kit (src/features/<name>) importing the kit only
 * through its folders' index.ts files and its package surface, never each
 * other, and never imported by the kit.
 * `bun scripts/layout.ts` prints the figures; the test holds them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
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

/** Cycles in a graph, each as the nodes around it (Tarjan's strongly connected components). */
function cyclesIn(graph: ReadonlyMap<string, readonly string[]>): string[][] {
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
  for (const f of graph.keys()) if (!index.has(f)) connect(f);
  return out;
}

/**
 * The folder a file belongs to, as a reader names it: the kit's contract
 * sections (src/kit/<section>), a tool's parts (tools/<tool>/<part>), the
 * verifier's parts (verify/<part>); a file at such a root is the root's own.
 */
export function folderOf(file: string): string {
  const parts = (isAbsolute(file) ? relative(root, file) : file).split("/");
  const depth = parts[0] === "tools" || (parts[0] === "src" && (parts[1] === "kit" || parts[1] === "features")) ? 3 : 2;
  return parts.slice(0, Math.min(depth, parts.length - 1)).join("/");
}

/** The folders' import graph: an edge from a folder to every other folder one of its files imports. */
function folderGraph(fileGraph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const [file, targets] of fileGraph) {
    const from = folderOf(file);
    const edges = out.get(from) ?? new Set<string>();
    for (const t of targets) if (folderOf(t) !== from) edges.add(folderOf(t));
    out.set(from, edges);
  }
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}

/**
 * The kit's folders, bottom layer first: a folder imports only folders of
 * the layers below its own, never a peer (docs/house.md, "Layers"). The
 * package's surface (src/kit/*.ts) sits above them all.
 */
export const KIT_LAYERS: readonly (readonly string[])[] = [
  ["base", "output"],
  ["identity", "lists", "pipeline", "database"],
  ["cli"],
  ["declare"],
  ["introspection"],
  ["compile", "bindings"],
  ["runtime"],
  ["llm", "mutations"],
];

/** The layers as one line, as docs/house.md states them. */
export const layersLine = (): string => KIT_LAYERS.map((l) => l.join(", ")).join(" → ");

/** Every measured file's relative imports among the measured files, paths relative to the repository. */
export function importGraph(): Map<string, string[]> {
  const src = measuredSources();
  const known = new Set(src);
  const rel = (f: string) => relative(root, f);
  return new Map(
    src.map((f) => [
      rel(f),
      [
        ...new Set(
          importsOf(f)
            .filter((t) => known.has(t))
            .map(rel),
        ),
      ],
    ]),
  );
}

/** The kit folder (src/kit/<name>) a file lies in, or null for a file elsewhere or at the kit's root. */
export function kitFolderOf(file: string): string | null {
  const parts = file.split("/");
  return parts[0] === "src" && parts[1] === "kit" && parts.length > 3 ? parts[2]! : null;
}

/** The feature (src/features/<name>) a file lies in, or null for a file elsewhere. */
export function featureOf(file: string): string | null {
  const parts = file.split("/");
  return parts[0] === "src" && parts[1] === "features" && parts.length > 3 ? parts[2]! : null;
}

/** How a feature may reach the kit: a kit folder's index.ts, or a file of the package's surface (src/kit/*.ts). */
const kitDoor = (target: string): boolean =>
  /^src\/kit\/[^/]+\.ts$/.test(target) || /^src\/kit\/[^/]+\/index\.ts$/.test(target);

/**
 * Imports against the features' shape (hono's): a feature imports the kit
 * only through a door (kitDoor) and never another feature; the kit, its
 * surface included, never imports a feature. As `file → target`.
 */
function againstFeatures(graph: ReadonlyMap<string, readonly string[]>): { file: string; target: string }[] {
  return [...graph].flatMap(([file, targets]) => {
    const from = featureOf(file);
    const inKit = file.startsWith("src/kit/");
    return targets
      .filter((t) => {
        const to = featureOf(t);
        if (inKit) return to !== null;
        if (from === null) return false;
        return (to !== null && to !== from) || (t.startsWith("src/kit/") && !kitDoor(t));
      })
      .map((target) => ({ file, target }));
  });
}

/** Imports that reach into another kit folder past its index.ts, as `file → target`. */
function pastIndex(graph: ReadonlyMap<string, readonly string[]>): { file: string; target: string }[] {
  return [...graph].flatMap(([file, targets]) =>
    targets
      .filter((t) => {
        const into = kitFolderOf(t);
        return into !== null && into !== kitFolderOf(file) && t !== `src/kit/${into}/index.ts`;
      })
      .map((target) => ({ file, target })),
  );
}

/** Imports from one kit folder into another of the same layer or one above it, as `file → target`. */
function againstLayers(graph: ReadonlyMap<string, readonly string[]>): { file: string; target: string }[] {
  const layer = (folder: string) => KIT_LAYERS.findIndex((l) => l.includes(folder));
  return [...graph].flatMap(([file, targets]) => {
    const from = kitFolderOf(file);
    return from === null
      ? []
      : targets
          .filter((t) => {
            const to = kitFolderOf(t);
            return to !== null && to !== from && !(layer(from) > layer(to) && layer(to) >= 0);
          })
          .map((target) => ({ file, target }));
  });
}

export interface LayoutReport {
  readonly longFiles: { file: string; lines: number }[];
  readonly longFunctions: { file: string; name: string; lines: number }[];
  readonly cycles: string[][];
  /** Folders that lean on each other, each cycle as its folders. */
  readonly folderCycles: string[][];
  /** Kit folders without an index.ts whose first line names a contract section (§N). */
  readonly unnamedFolders: string[];
  /** Imports into a kit folder from outside it that name a file other than its index.ts. */
  readonly pastIndex: { file: string; target: string }[];
  /** Imports between kit folders that are not from a higher layer to a lower one (KIT_LAYERS). */
  readonly againstLayers: { file: string; target: string }[];
  /** A feature importing another, or the kit past a door; the kit importing a feature. */
  readonly againstFeatures: { file: string; target: string }[];
  /** Features without an index.ts, their public way in. */
  readonly featuresWithoutIndex: string[];
  readonly largestFile: { file: string; lines: number };
  readonly longestFunction: { file: string; name: string; lines: number };
}

/** The sources the rules measure: every TypeScript file under src/, tools/ and verify/ but the tests. */
export const measuredSources = (): string[] =>
  ["src", "tools", "verify"].flatMap((d) => sourcesUnder(join(root, d))).filter((f) => !f.endsWith(".test.ts"));

/** The features beside the kit: src/features/<name>. */
export const features = (): string[] => {
  const dir = join(root, "src", "features");
  return existsSync(dir) ? readdirSync(dir).filter((d) => statSync(join(dir, d)).isDirectory()) : [];
};

export function layoutReport(): LayoutReport {
  const src = measuredSources();
  const rel = (f: string) => relative(root, f);
  const sizes = src
    .map((f) => ({ file: rel(f), lines: readFileSync(f, "utf8").split("\n").length - 1 }))
    .sort((a, b) => b.lines - a.lines);
  const kit = join(root, "src", "kit");
  const fns = src
    .flatMap((f) => functionsIn(f).map((fn) => ({ file: rel(f), ...fn })))
    .sort((a, b) => b.lines - a.lines);
  const graph = importGraph();
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
    cycles: cyclesIn(graph),
    folderCycles: cyclesIn(folderGraph(graph)),
    unnamedFolders: folders.filter((d) => !named(d)),
    pastIndex: pastIndex(graph),
    againstLayers: againstLayers(graph),
    againstFeatures: againstFeatures(graph),
    featuresWithoutIndex: features().filter((f) => !existsSync(join(root, "src", "features", f, "index.ts"))),
    largestFile: sizes[0]!,
    longestFunction: fns[0]!,
  };
}

if (import.meta.main) {
  const r = layoutReport();
  console.log(`largest file: ${r.largestFile.file}, ${r.largestFile.lines} lines (limit ${MAX_FILE_LINES})`);
  console.log(
    `longest function: ${r.longestFunction.name} in ${r.longestFunction.file}, ${r.longestFunction.lines} lines (limit ${MAX_FUNCTION_LINES})`,
  );
  for (const f of r.longFiles) console.log(`  over: ${f.file} ${f.lines} lines`);
  for (const f of r.longFunctions) console.log(`  over: ${f.name} in ${f.file}, ${f.lines} lines`);
  console.log(`file import cycles (static, type-only and dynamic imports): ${r.cycles.length}`);
  for (const c of r.cycles) console.log(`  ${c.join(" ↔ ")}`);
  console.log(`folder import cycles: ${r.folderCycles.length}`);
  for (const c of r.folderCycles) console.log(`  ${c.join(" ↔ ")}`);
  console.log(
    `kit folders without an index.ts naming its contract section: ${r.unnamedFolders.length ? r.unnamedFolders.join(", ") : "none"}`,
  );
  console.log(`imports into a kit folder past its index.ts: ${r.pastIndex.length}`);
  for (const i of r.pastIndex) console.log(`  ${i.file} → ${i.target}`);
  console.log(`kit layers: ${layersLine()}; imports against them: ${r.againstLayers.length}`);
  for (const i of r.againstLayers) console.log(`  ${i.file} → ${i.target}`);
  console.log(
    `features (${features().join(", ")}): without an index.ts ${r.featuresWithoutIndex.length}; importing each other, the kit past its doors, or imported by the kit: ${r.againstFeatures.length}`,
  );
  for (const i of r.againstFeatures) console.log(`  ${i.file} → ${i.target}`);
  const faults = [
    r.longFiles,
    r.longFunctions,
    r.cycles,
    r.folderCycles,
    r.unnamedFolders,
    r.pastIndex,
    r.againstLayers,
    r.againstFeatures,
    r.featuresWithoutIndex,
  ];
  process.exitCode = faults.some((f) => f.length > 0) ? 1 : 0;
}
