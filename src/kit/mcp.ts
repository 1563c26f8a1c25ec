/** The kit's surface for a tool that adds its own MCP profiles (brain's `memory`): the shapes its `mcp.ts` exports and answers with. */
export {
  ResourceError,
  type CommandAnswer,
  type ExtensionTool,
  type McpExtension,
  type McpExtensionModule,
  type ProfileContext,
  type RunCommand,
  type ToolAnswer,
} from "./bindings/index.ts";
export { errorAnswer } from "./bindings/index.ts";
