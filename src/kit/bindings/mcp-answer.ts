/**
 * What an MCP call answers, and how `tools/list` shows a command. The text
 * block holds the data; what the contract keeps in `meta` and a model acts
 * on (the cursor, the truncation hint, the next steps) follows in a second
 * text block, since many clients never show `_meta` to the model.
 * structuredContent (and the outputSchema that calls for it) only when the
 * host asked (`--structured`): the spec has a tool with an outputSchema
 * return the same JSON as text too, for clients that read only text, which
 * a host that never asked would pay for twice.
 */
import { encode as toToon } from "@toon-format/toon";
import type { ProgressReport } from "../base/index.ts";
import type { CommandDoc } from "../introspection/index.ts";
import type { RunCommand } from "./extension.ts";
import { inputOf } from "./manifest.ts";
import { forMcp } from "./mcp-errors.ts";

type McpFormat = "json" | "toon";

/** Past this a TOON text block is not worth the encoding: the call answers compact JSON instead. */
const MAX_TOON_BYTES = 256 * 1024;

export interface Served {
  readonly name: string;
  readonly command: CommandDoc;
}

/**
 * A served command as `tools/list` shows it. Its outputSchema only when the
 * host asked for structured content (`--structured`): the MCP spec has a
 * tool with an outputSchema return structuredContent, and, for clients that
 * read only text, the same JSON in a text block; served to a host that never
 * asked, that is every answer's bytes twice.
 */
export const toolOf = ({ name, command: c }: Served, structured = false) => ({
  name,
  description: `${c.description ? `${c.summary} ${c.description}` : c.summary}${c.rw === "write" || c.pagination ? ` ${SEAM_NOTE}` : ""}`,
  inputSchema: inputOf(c),
  ...(structured ? { outputSchema: c.output_schema } : {}),
  annotations: {
    title: c.summary,
    readOnlyHint: c.rw === "read",
    destructiveHint: c.rw === "write",
    idempotentHint: c.rw === "read",
    openWorldHint: false,
  },
});

/** Where a model finds what the contract keeps in `meta`, said in the descriptions of the tools that page or plan. */
export const SEAM_NOTE = 'A cut answer ends with {"meta":{next_cursor,truncation_hint,next}} in a second text block.';

/**
 * The part of `meta` a model acts on, for the text it reads: the cursor,
 * the truncation hint and the next steps; null when there is none of them.
 */
export function seamOf(meta: Record<string, unknown> | undefined): Record<string, unknown> | null {
  const m = (meta ?? {}) as {
    truncated?: boolean;
    truncation_hint?: string | null;
    pagination?: { next_cursor?: string | null } | null;
    next?: string[];
  };
  const seam = {
    ...(m.truncated ? { truncated: true } : {}),
    ...(m.pagination?.next_cursor ? { next_cursor: m.pagination.next_cursor } : {}),
    ...(m.truncation_hint ? { truncation_hint: m.truncation_hint } : {}),
    ...(m.next && m.next.length > 0 ? { next: m.next } : {}),
  };
  return Object.keys(seam).length > 0 ? seam : null;
}

/** The data as the text block a model reads: compact JSON, or TOON when asked and worth it. */
function dataText(data: unknown, format: McpFormat): string {
  const json = JSON.stringify(data);
  if (format !== "toon") return json;
  try {
    const toon = toToon(data);
    if (Buffer.byteLength(toon) <= MAX_TOON_BYTES) return toon;
  } catch {
    // Unencodable as TOON: the compact JSON stands.
  }
  return json;
}

export interface Answering {
  readonly format: McpFormat;
  readonly structured: boolean;
}

/** One call: the command run as argv would run it, its envelope folded into an MCP result. */
export async function call(
  run: RunCommand,
  served: Served,
  args: Record<string, unknown>,
  how: Answering,
  onProgress: ((p: ProgressReport) => void) | undefined,
) {
  const envelope = await run(served.command.name.split(" "), { input: args, ...(onProgress ? { onProgress } : {}) });
  if (!envelope.ok)
    return { isError: true, content: [{ type: "text" as const, text: JSON.stringify(forMcp(envelope.error)) }] };
  const data = envelope.data ?? {};
  const seam = seamOf(envelope.meta as Record<string, unknown>);
  const content = [
    { type: "text" as const, text: dataText(data, how.format) },
    ...(seam ? [{ type: "text" as const, text: JSON.stringify({ meta: seam }) }] : []),
  ];
  return { ...(how.structured ? { structuredContent: data } : {}), content, _meta: { meta: envelope.meta } };
}
