/** contract §9: SKILL.md is generated, never hand-edited; the committed copies must match the definitions. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describeTool } from "../../src/kit/introspection/describe.ts";
import { fleetSkill, toolSkill } from "../../src/kit/introspection/skill.ts";
import { toolNames } from "../../scripts/build.ts";

const root = join(import.meta.dir, "..", "..");

test("each tool's committed SKILL.md and the fleet skill are what the definitions generate", async () => {
  const docs = [];
  for (const name of toolNames()) {
    const doc = describeTool((await import(join(root, "tools", name, "tool.ts"))).default);
    docs.push(doc);
    expect(readFileSync(join(root, "tools", name, "SKILL.md"), "utf8")).toBe(toolSkill(doc));
  }
  expect(readFileSync(join(root, "SKILL.md"), "utf8")).toBe(fleetSkill(docs));
});
