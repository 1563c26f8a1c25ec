/**
 * The MCP binding (shared/seeds/mcp-tool-contract-b2.md): `<tool> --mcp`
 * serves the tool's commands over MCP stdio with the official SDK, loaded only
 * in this mode. A transport is an adapter, never a second implementation: a
 * call runs the very same command as argv does, as a child of this binary,
 * with its input as one JSON object on stdin (`--params -`), so validation,
 * the envelope, redaction and the credential scope split are the argv door's.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { encode as toToon } from "@toon-format/toon";
import type { CommandDoc, DescribeDoc } from "../introspection/describe-doc.ts";
import { inputOf, toolName } from "./manifest.ts";
import { selfArgv } from "../runtime/multicall.ts";

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

/** The tools a profile lists, sorted by name so `tools/list` is the same on every run. */
export function servedTools(doc: DescribeDoc, profile: McpProfile): Served[] {
  return doc.commands
    .filter((c) => profile === "full" || c.rw === "read")
    .map((c) => ({ name: toolName(doc.tool, c), command: c }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

const toolOf = ({ name, command: c }: Served) => ({
  name,
  description: c.description ? `${c.summary} ${c.description}` : c.summary,
  inputSchema: inputOf(c),
  outputSchema: c.output_schema,
  annotations: { title: c.summary, readOnlyHint: c.rw === "read", destructiveHint: c.rw === "write", idempotentHint: c.rw === "read", openWorldHint: false },
});

/** One call: the command run as argv would run it, its envelope folded into an MCP result. */
async function call(doc: DescribeDoc, served: Served, args: Record<string, unknown>, format: McpFormat) {
  const child = Bun.spawn([...selfArgv(), ...served.command.name.split(" "), "--params", "-", "--json", "--no-input"], {
    stdin: new Blob([JSON.stringify(args)]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  let envelope: { ok: boolean; data: Record<string, unknown> | null; error: Record<string, unknown> | null; meta: Record<string, unknown> };
  try {
    envelope = JSON.parse(out);
  } catch {
    throw new McpError(ErrorCode.InternalError, `${doc.tool} ${served.command.name} did not answer an envelope (exit ${code})`);
  }
  if (!envelope.ok) return { isError: true, content: [{ type: "text" as const, text: JSON.stringify(envelope.error) }] };
  const data = envelope.data ?? {};
  const compact = JSON.stringify(data);
  let text = compact;
  if (format === "toon")
    try {
      const toon = toToon(data);
      if (Buffer.byteLength(toon) <= MAX_TOON_BYTES) text = toon;
    } catch {
      // Unencodable as TOON: the compact JSON stands, and structuredContent carries the data either way.
    }
  return { structuredContent: data, content: [{ type: "text" as const, text }], _meta: { meta: envelope.meta } };
}

export async function serveMcp(doc: DescribeDoc, opts: { profile: McpProfile; format: McpFormat; version: string }): Promise<void> {
  const served = servedTools(doc, opts.profile);
  const byName = new Map(served.map((s) => [s.name, s]));
  const server = new Server({ name: doc.tool, version: opts.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: served.map(toolOf) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const target = byName.get(request.params.name);
    if (!target) {
      const write = doc.commands.find((c) => toolName(doc.tool, c) === request.params.name);
      if (write)
        return {
          isError: true,
          content: [{ type: "text" as const, text: JSON.stringify({ code: "POLICY_DENIED", message: `${request.params.name} writes, and this server runs the read-only profile`, retryable: false, hint: "start the server with --profile full to plan changes" }) }],
        };
      throw new McpError(ErrorCode.InvalidParams, `no tool is named ${request.params.name}; tools: ${served.map((s) => s.name).join(", ")}`);
    }
    return call(doc, target, (request.params.arguments ?? {}) as Record<string, unknown>, opts.format);
  });
  await server.connect(new StdioServerTransport());
}
