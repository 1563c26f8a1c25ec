/** contract §9: SKILL.md is generated, never hand-edited; the committed copies must match the definitions. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileTool } from "../../src/kit/compile/index.ts";
import { fleetSkill } from "../../src/kit/introspection/skill.ts";
import { toolNames } from "../../scripts/build.ts";

const root = join(import.meta.dir, "..", "..");

test("each tool's committed SKILL.md and the fleet skill are what the definitions generate", async () => {
  const docs = [];
  for (const name of toolNames()) {
    const { describe: doc, skill } = compileTool((await import(join(root, "tools", name, "tool.ts"))).default);
    docs.push(doc);
    expect(readFileSync(join(root, "tools", name, "SKILL.md"), "utf8")).toBe(skill);
  }
  expect(readFileSync(join(root, "SKILL.md"), "utf8")).toBe(fleetSkill(docs));
});
