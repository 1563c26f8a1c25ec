/**
 * The pinned contract artifact (test/golden/contract.json): per tool, its
 * commands (sorted, as the declared-tools names), how many, and a sha256 over
 * their normalized definitions (name, summary, description, tier, read/write,
 * input and output schemas, errors, environment); per MCP profile, the tools
 * `tools/list` answers, how many, and a sha256 over their definitions
 * (annotations included); and the MCP SDK's version. `npm test` fails when the
 * tools drift from it without `bun run contract` in the same change.
 *
 *   bun scripts/contract.ts           write it
 *   bun scripts/contract.ts --check   exit 1, saying what drifted, if it is stale
 */
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import canonicalize from "canonicalize";
import { compileTool, listedTools } from "../src/kit/compile/index.ts";
import type { Tool } from "../src/kit/declare/define.ts";
import { toolName } from "../src/kit/bindings/manifest.ts";
import type { McpExtensionModule } from "../src/kit/bindings/extension.ts";
import { MCP_PROFILES, servedTools, toolOf } from "../src/kit/bindings/mcp.ts";
import type { DescribeDoc } from "../src/kit/introspection/describe-doc.ts";
import { toolNames } from "./build.ts";

const root = join(import.meta.dir, "..");
export const CONTRACT_FILE = join(root, "test", "golden", "contract.json");

const sha = (value: unknown): string => new Bun.CryptoHasher("sha256").update(canonicalize(value)!).digest("hex");

/** The MCP SDK the servers are built with: a server's answers may change with it. */
const sdkVersion = (): string =>
  JSON.parse(readFileSync(join(root, "node_modules", "@modelcontextprotocol", "sdk", "package.json"), "utf8")).version;

/** Per MCP profile, what `tools/list` answers: the sorted names, how many, and a hash over their definitions (annotations included). */
async function mcpProfiles(
  name: string,
  tool: Tool,
  doc: DescribeDoc,
): Promise<Record<string, { tools: string[]; count: number; sha256: string }>> {
  const listed: Record<string, { name: string }[]> = Object.fromEntries(
    MCP_PROFILES.map((p) => [p, servedTools(doc, p).map((s) => toolOf(s))]),
  );
  if (tool.mcpProfiles?.length) {
    const { profiles } = (await import(join(root, "tools", name, "mcp.ts"))) as McpExtensionModule;
    for (const p of tool.mcpProfiles) listed[p] = listedTools(profiles[p]!.tools, `${name} --mcp --profile ${p}`);
  }
  return Object.fromEntries(
    Object.entries(listed).map(([p, list]) => [
      p,
      { tools: list.map((t) => t.name), count: list.length, sha256: sha(list) },
    ]),
  );
}

export async function contractArtifact(): Promise<Record<string, unknown>> {
  const tools: Record<string, unknown> = {};
  const names = toolNames();
  for (const name of names) {
    const tool = (await import(join(root, "tools", name, "tool.ts"))).default as Tool;
    const doc = compileTool(tool).describe;
    const defs = doc.commands
      .map((c) => ({
        name: toolName(doc.tool, c),
        command: c.name,
        summary: c.summary,
        description: c.description,
        tier: c.tier,
        rw: c.rw,
        input_schema: c.input_schema,
        output_schema: c.output_schema,
        errors: c.errors,
        env: c.env,
      }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    tools[doc.tool] = {
      contract_version: doc.contract_version,
      version: doc.version,
      commands: defs.map((d) => d.name),
      count: defs.length,
      sha256: sha(defs),
      mcp: await mcpProfiles(name, tool, doc),
    };
  }
  return { contract_version: 0, mcp_sdk: sdkVersion(), tools };
}

if (import.meta.main) {
  const text = `${JSON.stringify(await contractArtifact(), null, 2)}\n`;
  if (process.argv.includes("--check")) {
    const committed = existsSync(CONTRACT_FILE) ? readFileSync(CONTRACT_FILE, "utf8") : "";
    if (committed !== text) {
      console.error(
        `${CONTRACT_FILE} is stale: the tools' public definitions changed. Run \`bun run contract\` and commit it with the change.`,
      );
      process.exit(1);
    }
  } else writeFileSync(CONTRACT_FILE, text);
}
