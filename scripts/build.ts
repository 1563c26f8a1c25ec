/**
 * Builds the fleet: every tool under tools/ and the verifier compile into
 * dist/<name>, and each tool's SKILL.md plus the fleet skill are generated
 * from the same definitions as --describe.
 *
 *   bun scripts/build.ts            build everything
 *   bun scripts/build.ts seo        build only the named binaries
 *   bun scripts/build.ts --skills   regenerate the committed SKILL.md files only
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeTool } from "../src/kit/describe.ts";
import type { DescribeDoc } from "../src/kit/describe-doc.ts";
import type { Tool } from "../src/kit/define.ts";
import { fleetSkill, toolSkill } from "../src/kit/skill.ts";
import { compile } from "./compile.ts";
import { writeEntry } from "./entry.ts";

const root = join(import.meta.dir, "..");
const dist = join(root, "dist");

export const toolNames = (): string[] =>
  readdirSync(join(root, "tools"), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, "tools", d.name, "tool.ts")))
    .map((d) => d.name)
    .sort();

/** The binaries: every tool (through its generated entry, zod compiled out), then the verifier. */
const targets = (): { name: string; entry: () => Promise<string>; zodStandIn: boolean }[] => [
  ...toolNames().map((name) => ({ name, entry: () => writeEntry(name, join(dist, ".build", name)), zodStandIn: true })),
  { name: "verify", entry: async () => join(root, "verify", "main.ts"), zodStandIn: false },
];

export async function writeSkills(): Promise<DescribeDoc[]> {
  const docs: DescribeDoc[] = [];
  for (const name of toolNames()) {
    const tool = (await import(join(root, "tools", name, "tool.ts"))).default as Tool;
    const doc = describeTool(tool);
    docs.push(doc);
    const skill = toolSkill(doc);
    writeFileSync(join(root, "tools", name, "SKILL.md"), skill);
    const share = join(dist, "share", name);
    mkdirSync(share, { recursive: true });
    writeFileSync(join(share, "SKILL.md"), skill);
    copyFileSync(join(root, "tools", name, "spec.yaml"), join(share, "spec.yaml"));
  }
  mkdirSync(join(dist, "share"), { recursive: true });
  writeFileSync(join(dist, "share", "SKILL.md"), fleetSkill(docs));
  writeFileSync(join(root, "SKILL.md"), fleetSkill(docs));
  return docs;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  mkdirSync(dist, { recursive: true });
  await writeSkills();
  if (!args.includes("--skills")) {
    const wanted = args.filter((a) => !a.startsWith("-"));
    for (const t of targets().filter((t) => wanted.length === 0 || wanted.includes(t.name))) {
      const started = performance.now();
      await compile(await t.entry(), join(dist, t.name), { zodStandIn: t.zodStandIn });
      console.error(`built dist/${t.name} in ${Math.round(performance.now() - started)} ms`);
    }
  }
}
