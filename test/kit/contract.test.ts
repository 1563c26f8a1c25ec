/** The pinned contract artifact: the tools may not drift from test/golden/contract.json, nor the README's counts from it. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CONTRACT_FILE, contractArtifact } from "../../scripts/contract.ts";

const pinned = JSON.parse(readFileSync(CONTRACT_FILE, "utf8")) as {
  tools: Record<string, { count: number; commands: string[] }>;
};

test("the tools' public definitions are the ones pinned in test/golden/contract.json (else: bun run contract, and commit it)", async () => {
  expect(await contractArtifact()).toEqual(pinned);
});

test("the README's command counts agree with the pinned contract", () => {
  const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
  const line = readme.match(/^The fleet's commands: (\d+) in all \(([^)]*)\)/m);
  expect(line).not.toBeNull();
  const counts = Object.fromEntries(
    line![2]!
      .split(", ")
      .map((p) => p.split(" ") as [string, string])
      .map(([tool, n]) => [tool, Number(n)]),
  );
  expect(counts).toEqual(Object.fromEntries(Object.entries(pinned.tools).map(([tool, t]) => [tool, t.count])));
  expect(Number(line![1])).toBe(Object.values(pinned.tools).reduce((n, t) => n + t.count, 0));
});
