/** The kit stays a house a newcomer can live in: the rules scripts/layout.ts measures, held. */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { features, importGraph, KIT_LAYERS, kitFolderOf, layersLine, layoutReport } from "../../scripts/layout.ts";
import { sourcesUnder } from "../../scripts/sources.ts";

const root = join(import.meta.dir, "..", "..");
const report = layoutReport();
/** The rules hold src/; tools/ and verify/ are measured and printed beside them. */
const inSrc = (file: string) => file.startsWith("src/");

test("no file in src/ over 250 lines", () => {
  expect(report.longFiles.filter((f) => inSrc(f.file))).toEqual([]);
});

test("no function in src/ over 60 lines", () => {
  expect(report.longFunctions.filter((f) => inSrc(f.file))).toEqual([]);
});

test("tools/ and verify/: their files and functions over the limits, printed", () => {
  const over = [
    ...report.longFiles.filter((f) => !inSrc(f.file)).map((f) => `${f.file} ${f.lines} lines`),
    ...report.longFunctions.filter((f) => !inSrc(f.file)).map((f) => `${f.name} in ${f.file}, ${f.lines} lines`),
  ];
  console.log(`tools/ and verify/ over 250 lines a file or 60 a function: ${over.length}\n  ${over.join("\n  ")}`);
});

test("no import cycle in src/, type-only and dynamic imports included", () => {
  expect(report.cycles.filter((c) => c.some(inSrc))).toEqual([]);
});

test("no two folders of src/ import each other, around any cycle", () => {
  expect(report.folderCycles.filter((c) => c.some(inSrc))).toEqual([]);
});

test("every kit folder has an index.ts whose header names its contract section", () => {
  expect(report.unnamedFolders).toEqual([]);
});

/**
 * Files that still import other folders' modules by path: the gate's
 * library, and the two apply modules. The list only shrinks.
 */
const BY_PATH = [/^src\/gate\//];
const BY_PATH_FILES = new Set(["src/kit/mutations/apply-command.ts", "src/kit/mutations/apply/loop.ts"]);
const byPath = (file: string) => BY_PATH_FILES.has(file) || BY_PATH.some((p) => p.test(file));

test("a kit folder's index.ts is its only way in: no file of src/ imports another kit folder's other files", () => {
  const graph = importGraph();
  const reaching = [...graph].flatMap(([file, targets]) =>
    inSrc(file) && !byPath(file)
      ? targets
          .filter((t) => {
            const into = kitFolderOf(t);
            return into !== null && into !== kitFolderOf(file) && t !== `src/kit/${into}/index.ts`;
          })
          .map((t) => `${file} → ${t}`)
      : [],
  );
  expect(reaching).toEqual([]);
  // The rule has something to hold: every kit folder's index.ts is how some file outside it, or the package, reaches it.
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, { bun?: string } | string>;
  };
  const exported = Object.values(pkg.exports).flatMap((e) => (typeof e === "object" && e.bun ? [e.bun.slice(2)] : []));
  const entered = new Set([
    ...exported,
    ...[...graph].flatMap(([, targets]) => targets.filter((t) => /^src\/kit\/[^/]+\/index\.ts$/.test(t))),
  ]);
  expect(KIT_LAYERS.flat().filter((f) => !entered.has(`src/kit/${f}/index.ts`))).toEqual([]);
});

test("the kit's folders import only the layers below their own, as docs/house.md states them", () => {
  expect(report.againstLayers).toEqual([]);
  const kit = join(root, "src", "kit");
  const folders = readdirSync(kit).filter((d) => statSync(join(kit, d)).isDirectory());
  expect([...KIT_LAYERS.flat()].sort()).toEqual(folders.sort());
  expect(readFileSync(join(root, "docs", "house.md"), "utf8")).toContain(layersLine());
});

test("features beside the kit (src/features/<name>) import it only through a folder's index.ts or the package's surface, never each other; the kit never imports a feature", () => {
  expect(report.againstFeatures).toEqual([]);
  expect(report.featuresWithoutIndex).toEqual([]);
  // The rule has something to hold: the ledger's engines and the harness are features, each entered by the package.
  expect(features().sort()).toEqual(expect.arrayContaining(["harness", "ledger"]));
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, { bun?: string } | string>;
  };
  const exported = Object.values(pkg.exports).flatMap((e) => (typeof e === "object" && e.bun ? [e.bun.slice(2)] : []));
  expect(features().filter((f) => !exported.includes(`src/features/${f}/index.ts`))).toEqual([]);
});

test("zod's internals are read only by the compile step", () => {
  const readers = ["src", "tools", "scripts"].flatMap((dir) =>
    sourcesUnder(join(root, dir))
      .filter((f) => readFileSync(f, "utf8").includes("_zod"))
      .map((f) => relative(root, f)),
  );
  expect(readers.filter((f) => !f.startsWith("src/kit/compile/"))).toEqual([]);
  expect(readers).toContain("src/kit/compile/json-schema.ts");
});

/** Every import specifier a file names, static, re-exported and dynamic alike. */
const specifiersOf = (file: string): string[] =>
  [...readFileSync(file, "utf8").matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)["']([^"']+)["']/gm)].map(
    (m) => m[1]!,
  );

test("the fleet's tools reach the kit only through the package's exports, as an outside tool does", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, unknown>;
  };
  const surface = new Set(Object.keys(pkg.exports).map((k) => (k === "." ? pkg.name : `${pkg.name}/${k.slice(2)}`)));
  const reaching = sourcesUnder(join(root, "tools")).flatMap((f) =>
    specifiersOf(f)
      .filter(
        (s) =>
          /(^|\/)src\/kit(\/|$)/.test(s) ||
          (s.startsWith(pkg.name) && !surface.has(s)) ||
          s === "zod/mini" ||
          s === "zod",
      )
      .map((s) => `${relative(root, f)}: ${s}`),
  );
  expect(reaching).toEqual([]);
});

test("the verifier imports nothing of the kit", () => {
  const reaching = sourcesUnder(join(root, "verify")).flatMap((f) =>
    specifiersOf(f)
      .filter((s) => /(^|\/)src\//.test(s) || s.startsWith("agent-cli-kit") || s.includes("/tools/"))
      .map((s) => `${relative(root, f)}: ${s}`),
  );
  expect(reaching).toEqual([]);
});
