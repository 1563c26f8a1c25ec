/**
 * The compiled entry of a tool, written from the kit's one compile step
 * (src/kit/compile): the tool's index and describe document, its SKILL.md,
 * and for each command a module that re-exports its declaration (from the
 * file under `commands/` that declares it) beside the validators generated
 * from its schemas. At run time the binary loads only the command it runs,
 * and no zod schema. The entry itself prints `--describe`, `--help` and
 * `--version` as built, before the kit loads; anything else it hands to
 * main.ts, which runs the tool.
 *
 * A tool folder holds `tool.ts` (its default export is the tool), `spec.yaml`,
 * `commands/*.ts` (each default-exports one declaration or a list of them),
 * and optionally `mcp.ts` (the MCP profiles the tool adds).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { McpExtensionModule } from "../../kit/bindings/index.ts";
import type { Tool } from "../../kit/declare/index.ts";
import { compileTool, listedTools, type CompiledTool, type ToolIndex } from "../../kit/compile/index.ts";
import { HELP_DOCUMENT } from "../../kit/base/index.ts";
import { toolHelp } from "../../kit/introspection/index.ts";
import { createRedactor } from "../../kit/identity/index.ts";
import { commandIn, kitVersion, versionLine } from "../../kit/runtime/index.ts";
import { sourcesUnder } from "./sources.ts";
import { BuildError } from "./build-error.ts";

const kit = join(import.meta.dir, "..", "..", "kit");

/** The tool a folder declares: its `tool.ts`'s default export, checked to be a tool. */
export async function loadTool(toolDir: string): Promise<Tool> {
  const file = join(toolDir, "tool.ts");
  if (!existsSync(file))
    throw new BuildError(
      `${toolDir}: no tool.ts`,
      "a tool folder holds tool.ts, whose default export is defineTool({...}); `agent-cli-kit new NAME` writes one",
    );
  const tool = (await import(file)).default as Tool | undefined;
  if (!tool || typeof tool !== "object" || !Array.isArray(tool.commands))
    throw new BuildError(
      `${file}: the default export is not a tool`,
      "end tool.ts with `export default defineTool({ name, version, contractVersion, purpose, commands })`",
    );
  return tool;
}

/** The module under <toolDir>/commands that declares each command, found by its `run`. */
async function declaringModules(toolDir: string, tool: Tool): Promise<Map<string, string>> {
  const dir = join(toolDir, "commands");
  const found = new Map<string, string>();
  if (!existsSync(dir)) return found;
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .sort()) {
    const path = join(dir, file);
    const declared: unknown = (await import(path)).default;
    for (const spec of [declared].flat()) {
      const run = (spec as { run?: unknown } | null)?.run;
      const command = typeof run === "function" ? tool.commands.find((c) => c.run === run) : undefined;
      if (command) found.set(command.name, path);
    }
  }
  return found;
}

const slug = (commandName: string): string => commandName.replace(/ /g, "-");

/** Compiles the folder's tool; what a build writes and what `--describe`, SKILL.md and tools.json are made of. */
export async function compileFolder(toolDir: string): Promise<{ tool: Tool; compiled: CompiledTool }> {
  const tool = await loadTool(toolDir);
  const sources = [
    ...sourcesUnder(toolDir).filter((f) => !f.includes("/node_modules/") && !f.includes("/dist/")),
    ...sourcesUnder(kit),
  ];
  return { tool, compiled: compileTool(tool, { sources }) };
}

/** Writes <outDir>/entry.ts, its command modules and describe document; returns the entry's path. */
export async function writeEntry(
  toolDir: string,
  outDir: string,
  folder?: { tool: Tool; compiled: CompiledTool },
): Promise<string> {
  const { tool, compiled } = folder ?? (await compileFolder(toolDir));
  const { index } = compiled;
  const spec = join(toolDir, "spec.yaml");
  if (!existsSync(spec))
    throw new BuildError(
      `${tool.name}: no spec.yaml beside tool.ts`,
      `write ${relative(process.cwd(), spec) || "spec.yaml"} with \`contract_version: ${tool.contractVersion}\` (and name, version, purpose): the binary carries it and \`--spec\` prints it`,
    );
  const modules = await declaringModules(toolDir, tool);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const command of tool.commands) {
    const path = modules.get(command.name);
    if (!path)
      throw new BuildError(
        `${tool.name} ${command.name}: not declared by a module under commands/`,
        `declare it as (or in) the default export of a file under ${relative(process.cwd(), join(toolDir, "commands")) || "commands"}/`,
      );
    // Proven here, not at run time: the module declares the command.
    commandIn((await import(path)).default, index.commands.find((h) => h.name === command.name)!);
    writeFileSync(join(outDir, `${slug(command.name)}.validate.js`), compiled.validators[command.name]!.module());
    writeFileSync(
      join(outDir, `${slug(command.name)}.ts`),
      `export { default as declared } from ${JSON.stringify(path)};\nexport { bounds, flags, result } from "./${slug(command.name)}.validate.js";\n`,
    );
  }
  const describe = JSON.stringify(compiled.describe);
  writeFileSync(join(outDir, "describe.json"), describe);
  // The documents the binary carries and prints (`--skill`, `--spec`): a tool needs no file beside it.
  writeFileSync(join(outDir, "SKILL.md"), compiled.skill);
  // `--help` as the binary prints it, rendered from the document as the binary would parse it.
  const help = toolHelp(JSON.parse(describe));
  writeFileSync(join(outDir, HELP_DOCUMENT), help);
  copyFileSync(spec, join(outDir, "spec.yaml"));
  const mcp = tool.mcpProfiles?.length ? await writeMcpListing(toolDir, outDir, tool) : null;
  writeMain(outDir, tool.name, index, mcp);
  const entry = join(outDir, "entry.ts");
  writeFileSync(entry, await startOf(tool.name, index, describe, help));
  return entry;
}

/** <outDir>/main.ts: the tool's index, a loader per command, and its documents, run by the kit. */
function writeMain(outDir: string, name: string, index: ToolIndex, mcp: string | null): void {
  writeFileSync(
    join(outDir, "main.ts"),
    [
      `// Generated from ${name}'s tool.ts by agent-cli-kit's build; rebuilt on every build.`,
      `import { runIndexed } from ${JSON.stringify(join(kit, "runtime", "index.ts"))};`,
      ``,
      `await runIndexed(${JSON.stringify(index)}, {`,
      ...index.commands.map((c) => `  ${JSON.stringify(c.name)}: () => import("./${slug(c.name)}.ts"),`),
      `}, () => import("./describe.json", { with: { type: "text" } }), {`,
      `  "SKILL.md": () => import("./SKILL.md", { with: { type: "text" } }),`,
      `  "spec.yaml": () => import("./spec.yaml", { with: { type: "text" } }),`,
      `  ${JSON.stringify(HELP_DOCUMENT)}: () => import("./${HELP_DOCUMENT}", { with: { type: "text" } }),`,
      // A tool that adds MCP profiles serves them from its mcp.ts, their tools listed from mcp.json; loaded only by `--mcp`.
      mcp
        ? `}, { profiles: () => import(${JSON.stringify(mcp)}), listed: () => import("./mcp.json", { with: { type: "text" } }) });`
        : `});`,
      ``,
    ].join("\n"),
  );
}

/** The entry: the answers it prints before the kit loads (runtime/built-in-answers.ts), else main.ts. */
async function startOf(name: string, index: ToolIndex, describe: string, help: string): Promise<string> {
  return [
    `// Generated from ${name}'s tool.ts by agent-cli-kit's build; rebuilt on every build.`,
    `import { answerBuiltIn } from ${JSON.stringify(join(kit, "runtime", "built-in-answers.ts"))};`,
    ``,
    `if (!(await answerBuiltIn({`,
    ...builtInAnswers({ "--describe": ["describe.json", `${describe}\n`], "--help": [HELP_DOCUMENT, help] }),
    `  "--version": async () => ({ default: ${JSON.stringify(versionLine(index, await kitVersion()))} }),`,
    `}))) await import("./main.ts");`,
    ``,
  ].join("\n");
}

const builtIn = createRedactor({}, []).builtIn;

/**
 * The answers the entry prints before the kit loads (runtime/built-in-answers.ts):
 * each document the redactor's pass over built-in text leaves as it is. One it
 * would change (a credential's shape in a summary) is left to the full path, which redacts it.
 */
export function builtInAnswers(documents: Record<string, [file: string, printed: string]>): string[] {
  return Object.entries(documents)
    .filter(([, [, printed]]) => builtIn(printed) === printed)
    .map(([flag, [file]]) => `  ${JSON.stringify(flag)}: () => import("./${file}", { with: { type: "text" } }),`);
}

/**
 * The profiles' tools as `tools/list` shows them, written to <outDir>/mcp.json:
 * their zod inputs made JSON Schema here, since a binary carries no zod.
 * Returns the path of the tool's mcp.ts.
 */
async function writeMcpListing(toolDir: string, outDir: string, tool: Tool): Promise<string> {
  const mcp = join(toolDir, "mcp.ts");
  const declared = tool.mcpProfiles ?? [];
  if (!existsSync(mcp))
    throw new BuildError(
      `${tool.name}: declares MCP profiles (${declared.join(", ")}) but has no mcp.ts`,
      "export the profiles from mcp.ts beside tool.ts, or drop mcpProfiles",
    );
  const { profiles } = (await import(mcp)) as McpExtensionModule;
  const listed: Record<string, unknown> = {};
  for (const name of declared) {
    const profile = profiles?.[name];
    if (!profile)
      throw new BuildError(
        `${tool.name}: declares the MCP profile ${name}, which mcp.ts does not export`,
        `export const profiles = { ${name}: { tools, resources, resourceTemplates, call, read } } from mcp.ts`,
      );
    listed[name] = listedTools(profile.tools, `${tool.name} --mcp --profile ${name}`);
  }
  writeFileSync(join(outDir, "mcp.json"), JSON.stringify(listed));
  return mcp;
}
