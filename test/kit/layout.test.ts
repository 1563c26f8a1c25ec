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
