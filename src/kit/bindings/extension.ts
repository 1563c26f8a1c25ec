/**
 * A profile a tool adds to its MCP server (brain's `memory`): its own tools
 * and resources, each answered by running the tool's commands (or another
 * fleet tool's) as the argv door does, so the profile re-implements nothing.
 * Declared by the tool (`mcpProfiles` in tool.ts) and loaded from
 * `tools/<name>/mcp.ts` only when a server starts with that profile.
 */

/** What a command answered: its envelope, as the argv door prints it. */
export interface CommandAnswer {
  readonly exit: number;
  readonly ok: boolean;
  readonly data: Record<string, unknown> | null;
  readonly error: Record<string, unknown> | null;
  readonly meta: Record<string, unknown>;
}

/** Runs `argv` on this tool (or on the fleet tool `tool`), with `input` as its --params document. */
export type RunCommand = (
  argv: readonly string[],
  opts?: { input?: Record<string, unknown>; tool?: string },
) => Promise<CommandAnswer>;

export interface ExtensionTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations?: Record<string, unknown>;
}

export interface ToolAnswer {
  readonly isError?: boolean;
  readonly text: string;
  readonly structured?: Record<string, unknown>;
}

/** A resource read that fails: `unknown` (JSON-RPC -32002) or anything else (-32603), as the host-agent seed says. */
export class ResourceError extends Error {
  constructor(
    readonly kind: "unknown" | "other",
    message: string,
  ) {
    super(message);
  }
}

export interface McpExtension {
  readonly tools: readonly ExtensionTool[];
  readonly resources: readonly { uri: string; name: string; description: string; mimeType: string }[];
  readonly resourceTemplates: readonly { uriTemplate: string; name: string; description: string; mimeType: string }[];
  /** Why the profile cannot work in this environment (one line), or null: checked before the server starts, which then exits 1. */
  boot?(env: Readonly<Record<string, string | undefined>>): string | null;
  call(name: string, args: Record<string, unknown>, run: RunCommand): Promise<ToolAnswer>;
  read(uri: string, run: RunCommand): Promise<{ text: string; mimeType: string }>;
}

/** What `tools/<name>/mcp.ts` exports. */
export interface McpExtensionModule {
  readonly profiles: Readonly<Record<string, McpExtension>>;
}
