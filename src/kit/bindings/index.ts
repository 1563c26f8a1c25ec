/** contract §9 and §12, other doors to the same commands: MCP over stdio and the declared-tools manifest, adapters over one contract. */
export {
  ResourceError,
  type CommandAnswer,
  type ExtensionTool,
  type McpExtension,
  type ListedTool,
  type McpExtensionModule,
  type ProfileContext,
  type RunCommand,
  type ServedProfile,
  type ToolAnswer,
} from "./extension.ts";
export { errorAnswer } from "./mcp-errors.ts";
export { declaredTools, inputOf, toolName, type DeclaredTool } from "./manifest.ts";
export { MCP_FORMATS, MCP_PROFILES, servedTools, serveMcp, toolOf, type McpFormat, type McpProfile } from "./mcp.ts";
