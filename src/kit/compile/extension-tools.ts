/**
 * An MCP profile's tools as `tools/list` shows them: each tool's zod input
 * made JSON Schema by the function that compiles every command's flags. The
 * build runs it and the binary carries the result; the contract artifact
 * hashes the same listing.
 */
import type * as z from "zod/mini";
import { jsonSchemaOf, type JsonSchema } from "./json-schema.ts";

interface DeclaredTool {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodMiniObject;
  readonly annotations?: Record<string, unknown>;
}

/** The tools sorted by name (`tools/list` is the same on every run), each with its input as JSON Schema. */
export function listedTools(
  tools: readonly DeclaredTool[],
  where: string,
): { name: string; description: string; inputSchema: JsonSchema; annotations?: Record<string, unknown> }[] {
  return [...tools]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: jsonSchemaOf(t.input, "input", `${where}: ${t.name}'s input`),
      ...(t.annotations ? { annotations: t.annotations } : {}),
    }));
}
