/**
 * A profile a tool adds to its MCP server (brain's `memory`): its own tools
 * and resources, each answered by running the tool's commands (or another
 * fleet tool's) as the argv door does, so the profile re-implements nothing.
 * Declared by the tool (`mcpProfiles` in tool.ts) and loaded from
 * `tools/<name>/mcp.ts` only when a server starts with that profile. Its
 * tools declare their arguments in zod, as commands declare flags; the build
 * derives the JSON Schema `tools/list` shows (a binary carries no zod).
 */
import type { ProgressReport } from "../base/index.ts";
import type { ZodMiniObject } from "zod/mini";

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
  opts?: { input?: Record<string, unknown>; tool?: string; onProgress?: (p: ProgressReport) => void },
) => Promise<CommandAnswer>;

export interface ExtensionTool {
  readonly name: string;
  readonly description: string;
  /** Its arguments (`agent-cli-kit/schema`, `describe` for each one's words), as a command declares its flags. */
  readonly input: ZodMiniObject;
  readonly annotations?: Record<string, unknown>;
}

/** An extension tool as `tools/list` shows it: `input` as JSON Schema, derived by the kit (listedTools). */
export interface ListedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations?: Record<string, unknown>;
}

/** What a profile knows of its process: the runtime's environment, folders and clock (KitIO's), never `process`. */
export interface ProfileContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly tmpdir: string;
  now(): number;
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
  boot?(ctx: ProfileContext): string | null;
  call(name: string, args: Record<string, unknown>, run: RunCommand, ctx: ProfileContext): Promise<ToolAnswer>;
  read(uri: string, run: RunCommand, ctx: ProfileContext): Promise<{ text: string; mimeType: string }>;
}

/** A profile as a server serves it: its handlers, and its tools as listed (made by the build from their zod). */
export interface ServedProfile {
  readonly profile: McpExtension;
  readonly tools: readonly ListedTool[];
}

/** What `tools/<name>/mcp.ts` exports. */
export interface McpExtensionModule {
  readonly profiles: Readonly<Record<string, McpExtension>>;
}
