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
import { encode as toToon } from "@toon-format/toon";
import type { CommandDoc, DescribeDoc } from "../introspection/index.ts";
import { inputOf, toolName } from "./manifest.ts";
import { ResourceError, type ProfileContext, type RunCommand, type ServedProfile } from "./extension.ts";
import { commandRunner } from "./mcp-runner.ts";
import { Calls } from "./calls.ts";
import { errorText, failedCall, forMcp } from "./mcp-errors.ts";
import { LineTransport } from "./stdio.ts";

export const MCP_PROFILES = ["full", "read-only"] as const;
export const MCP_FORMATS = ["json", "toon"] as const;
export type McpProfile = (typeof MCP_PROFILES)[number];
export type McpFormat = (typeof MCP_FORMATS)[number];

/** Past this a TOON text block is not worth the encoding: the call answers compact JSON instead. */
const MAX_TOON_BYTES = 256 * 1024;

interface Served {
  readonly name: string;
  readonly command: CommandDoc;
}

/** The tools a profile lists, sorted by name so `tools/list` is the same on every run; never a person's act. */
export function servedTools(doc: DescribeDoc, profile: McpProfile): Served[] {
  return doc.commands
    .filter((c) => !c.person && (profile === "full" || c.rw === "read"))
    .map((c) => ({ name: toolName(doc.tool, c), command: c }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** A served command as `tools/list` shows it. */
export const toolOf = ({ name, command: c }: Served) => ({
  name,
  description: c.description ? `${c.summary} ${c.description}` : c.summary,
  inputSchema: inputOf(c),
  outputSchema: c.output_schema,
  annotations: {
    title: c.summary,
    readOnlyHint: c.rw === "read",
    destructiveHint: c.rw === "write",
    idempotentHint: c.rw === "read",
    openWorldHint: false,
  },
});

/** One call: the command run as argv would run it, its envelope folded into an MCP result. */
async function call(run: RunCommand, served: Served, args: Record<string, unknown>, format: McpFormat) {
  const envelope = await run(served.command.name.split(" "), { input: args });
  if (!envelope.ok)
    return { isError: true, content: [{ type: "text" as const, text: JSON.stringify(forMcp(envelope.error)) }] };
  const data = envelope.data ?? {};
  let text = JSON.stringify(data);
  if (format === "toon")
    try {
      const toon = toToon(data);
      if (Buffer.byteLength(toon) <= MAX_TOON_BYTES) text = toon;
    } catch {
      // Unencodable as TOON: the compact JSON stands, and structuredContent carries the data either way.
    }
  return { structuredContent: data, content: [{ type: "text" as const, text }], _meta: { meta: envelope.meta } };
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
  format: McpFormat,
  calls: Calls,
  run: RunCommand,
): void {
  const served = servedTools(doc, profile);
  const byName = new Map(served.map((s) => [s.name, s]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: served.map(toolOf) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const target = byName.get(request.params.name);
    if (!target) {
      const unlisted = doc.commands.find((c) => toolName(doc.tool, c) === request.params.name);
      if (unlisted) return refusal(request.params.name, unlisted, doc.tool);
      throw new McpError(
        ErrorCode.InvalidParams,
        `no tool is named ${request.params.name}; tools: ${served.map((s) => s.name).join(", ")}`,
      );
    }
    return calls.call(target.command.rw !== "read", () =>
      call(run, target, (request.params.arguments ?? {}) as Record<string, unknown>, format),
    );
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
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (!names.has(request.params.name))
      throw new McpError(
        ErrorCode.InvalidParams,
        `no tool is named ${request.params.name}; tools: ${[...names].sort().join(", ")}`,
      );
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const answer = await calls.call(writes.has(request.params.name), () =>
      extension.call(request.params.name, args, run, io).catch(failedCall),
    );
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
  else serveCommands(server, doc, opts.profile as McpProfile, opts.format, calls, run);
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
