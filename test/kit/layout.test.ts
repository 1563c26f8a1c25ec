/** The kit stays a house a newcomer can live in: the rules scripts/layout.ts measures, held. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { layoutReport } from "../../scripts/layout.ts";
import { sourcesUnder } from "../../scripts/sources.ts";

const root = join(import.meta.dir, "..", "..");
const report = layoutReport();

test("no file in src/ over 250 lines", () => {
  expect(report.longFiles).toEqual([]);
});

test("no function in src/kit over 60 lines", () => {
  expect(report.longFunctions).toEqual([]);
});

test("no import cycle in src/, type-only and dynamic imports included", () => {
  expect(report.cycles).toEqual([]);
});

test("every kit folder has an index.ts whose header names its contract section", () => {
  expect(report.unnamedFolders).toEqual([]);
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
