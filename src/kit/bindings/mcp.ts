/**
 * The MCP binding (shared/seeds/mcp-tool-contract-b2.md): `<tool> --mcp`
 * serves the tool's commands over MCP stdio with the official SDK, loaded only
 * in this mode. A transport is an adapter, never a second implementation: a
 * call runs the very same command as argv does, as a child of this binary,
 * with its input as one JSON object on stdin (`--params -`), so validation,
 * the envelope, redaction and the credential scope split are the argv door's.
 * A caller's values travel only in that document, never as argv words a
 * parser could read as flags. A person's act (an approval) is on no profile.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { CommandDoc, DescribeDoc } from "../introspection/index.ts";
import { toolName } from "./manifest.ts";
import { ResourceError, type ProfileContext, type RunCommand, type ServedProfile } from "./extension.ts";
import { commandRunner } from "./mcp-runner.ts";
import { Calls } from "./calls.ts";
import { errorText, failedCall } from "./mcp-errors.ts";
import { LineTransport } from "./stdio.ts";
import { type Answering, call, type Served, toolOf } from "./mcp-answer.ts";
import { progressNotifier } from "./mcp-progress.ts";

export const MCP_PROFILES = ["full", "read-only"] as const;
export const MCP_FORMATS = ["json", "toon"] as const;
export type McpProfile = (typeof MCP_PROFILES)[number];
export type McpFormat = (typeof MCP_FORMATS)[number];
export { toolOf } from "./mcp-answer.ts";

/** The tools a profile lists, sorted by name so `tools/list` is the same on every run; never a person's act. */
export function servedTools(doc: DescribeDoc, profile: McpProfile): Served[] {
  return doc.commands
    .filter((c) => !c.person && (profile === "full" || c.rw === "read"))
    .map((c) => ({ name: toolName(doc.tool, c), command: c }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** A command this profile does not list, called by name: POLICY_DENIED, saying why. */
function refusal(name: string, c: CommandDoc, tool: string) {
  const error = c.person
    ? {
        code: "POLICY_DENIED",
        message: `${name} is a person's act, which no MCP profile offers`,
        retryable: false,
        hint: `a person runs \`${tool} ${c.name}\` at the command line, with their own key`,
      }
    : {
        code: "POLICY_DENIED",
        message: `${name} writes, and this server runs the read-only profile`,
        retryable: false,
        hint: "start the server with --profile full to plan changes",
      };
  return { isError: true, content: [{ type: "text" as const, text: JSON.stringify(error) }] };
}

function serveCommands(
  server: Server,
  doc: DescribeDoc,
  profile: McpProfile,
  how: Answering,
  calls: Calls,
  run: RunCommand,
): void {
  const served = servedTools(doc, profile);
  const byName = new Map(served.map((s) => [s.name, s]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: served.map((s) => toolOf(s, how.structured)),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const target = byName.get(request.params.name);
    if (!target) {
      const unlisted = doc.commands.find((c) => toolName(doc.tool, c) === request.params.name);
      if (unlisted) return refusal(request.params.name, unlisted, doc.tool);
      throw new McpError(
        ErrorCode.InvalidParams,
        `no tool is named ${request.params.name}; tools: ${served.map((s) => s.name).join(", ")}`,
      );
    }
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const notifier = progressNotifier(request.params._meta?.progressToken, extra.sendNotification);
    try {
      return await calls.call(target.command.rw !== "read", () => call(run, target, args, how, notifier.onProgress));
    } finally {
      notifier.stop();
    }
  });
}

function serveExtension(
  server: Server,
  served: ServedProfile,
  calls: Calls,
  run: RunCommand,
  io: ProfileContext,
): void {
  const extension = served.profile;
  const names = new Set(served.tools.map((t) => t.name));
  const writes = new Set(served.tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...served.tools] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (!names.has(request.params.name))
      throw new McpError(
        ErrorCode.InvalidParams,
        `no tool is named ${request.params.name}; tools: ${[...names].sort().join(", ")}`,
      );
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    // A save waits its turn behind the writes before it: the heartbeat tells a client that counts its timeout
    // from the last progress that the call is alive.
    const notifier = progressNotifier(request.params._meta?.progressToken, extra.sendNotification);
    const answer = await calls
      .call(writes.has(request.params.name), () => extension.call(request.params.name, args, run, io).catch(failedCall))
      .finally(() => notifier.stop());
    const text = answer.isError ? errorText(answer.text) : answer.text;
    return {
      ...(answer.isError ? { isError: true } : {}),
      content: [{ type: "text" as const, text }],
      ...(answer.structured ? { structuredContent: answer.structured } : {}),
    };
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [...extension.resources] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [...extension.resourceTemplates],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      const { text, mimeType } = await extension.read(request.params.uri, run, io);
      return { contents: [{ uri: request.params.uri, mimeType, text }] };
    } catch (e) {
      if (e instanceof McpError) throw e;
      // The host-agent seed: an unknown resource is -32002, any other failure -32603.
      throw new McpError(
        e instanceof ResourceError && e.kind === "unknown" ? -32002 : ErrorCode.InternalError,
        (e as Error).message,
      );
    }
  });
}

export interface ServeOptions {
  readonly profile: string;
  readonly format: McpFormat;
  /** The host reads structuredContent (`--structured`, AGENT_MCP_STRUCTURED=1): tools list their outputSchema. */
  readonly structured: boolean;
  readonly version: string;
  /**
   * The argv door's redactor. Every frame the server writes passes it, the
   * server's own text included (an unknown tool's name, a resource's uri, a
   * heading around a query), not only what the commands answered. The
   * redactor keeps JSON valid, so a frame is redacted as its JSON text.
   */
  readonly redact: (text: string) => string;
  /** The argv that starts this tool, or the fleet tool named: each call runs as its child. */
  readonly start: (tool?: string) => string[];
  /** The runtime's environment, folders and clock, which the children and a profile get. */
  readonly io: ProfileContext;
}

export async function serveMcp(doc: DescribeDoc, opts: ServeOptions, extension?: ServedProfile): Promise<void> {
  const server = new Server(
    { name: doc.tool, version: opts.version },
    { capabilities: extension ? { tools: {}, resources: {} } : { tools: {} } },
  );
  const calls = new Calls(opts.io.env);
  const run = commandRunner(calls, opts.io.env, opts.start);
  if (extension) serveExtension(server, extension, calls, run, opts.io);
  else
    serveCommands(
      server,
      doc,
      opts.profile as McpProfile,
      { format: opts.format, structured: opts.structured },
      calls,
      run,
    );
  const log = (line: string) => void Bun.write(Bun.stderr, `${doc.tool}: ${line}\n`);
  const stop = (signal: string) => {
    if (calls.stopping) return;
    log(`${signal}: stopping`);
    void calls
      .stop()
      .then(() => new Promise((resolve) => process.stdout.write("", resolve)))
      .finally(() => process.exit(130));
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  // Every frame the server writes, its own text included, passes the same redactor as the commands' answers.
  await server.connect(new LineTransport(log, opts.redact));
}
