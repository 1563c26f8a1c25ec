/** contract §9 and §12, other doors to the same commands: MCP over stdio and the declared-tools manifest, adapters over one contract. */
export { declaredTools, inputOf, toolName, type DeclaredTool } from "./manifest.ts";
export { MCP_FORMATS, MCP_PROFILES, servedTools, serveMcp, type McpFormat, type McpProfile } from "./mcp.ts";
