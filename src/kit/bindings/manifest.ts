/**
 * The declared-tools binding (shared/seeds/declared-subprocess-tools.rs.md):
 * one manifest entry per command, so an agent host registers every command
 * as a model tool. The command is an argv array that reads its input as one
 * JSON object on stdin (`--params -`), never a shell string: nothing in a
 * model's input can be reinterpreted as shell syntax. Credentials appear only
 * as `${VAR}` references. Generated from the describe documents, like
 * `--help` and SKILL.md. A person's act (an approval) is left out.
 */
import { UNIVERSAL_FLAGS } from "../cli/index.ts";
import type { CommandDoc, DescribeDoc } from "../introspection/index.ts";

export interface DeclaredTool {
  description: string;
  input_schema: Record<string, unknown>;
  command: string[];
  env?: Record<string, string>;
  /** `read` for a read command; `external` for a write (it writes a plan; apply changes the world). */
  side_effect: "read" | "external";
  timeout_ms: number;
}

/** Verb first, snake_case: `seo_list_finding`, `brain_search`, `brain_create_note`. */
export const toolName = (tool: string, c: Pick<CommandDoc, "verb" | "resource">): string =>
  [tool, c.verb, c.resource].filter(Boolean).join("_").replace(/-/g, "_");

/**
 * The command's flags, plus the universal values a caller needs through this
 * door (the same keys `--params` accepts), as the flag table declares them:
 * a list's `limit` and `cursor`, and `run-dir`, where a pipeline's artifacts
 * are read and written.
 */
export function inputOf(c: CommandDoc): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const f of UNIVERSAL_FLAGS) {
    const property = f.inParams ? f.declared?.(c.pagination) : null;
    if (property) extra[f.name] = property;
  }
  const schema = c.input_schema as { properties?: Record<string, unknown> };
  return { ...c.input_schema, properties: { ...(schema.properties ?? {}), ...extra } };
}

export function declaredTools(docs: readonly DescribeDoc[]): { schema: 1; tools: Record<string, DeclaredTool> } {
  const tools: Record<string, DeclaredTool> = {};
  for (const doc of docs)
    for (const c of doc.commands) {
      if (c.person) continue; // a person's act is never a model's tool
      const vars = [...doc.env, ...c.env].map((v) => v.name);
      tools[toolName(doc.tool, c)] = {
        description: c.description ? `${c.summary} ${c.description}` : c.summary,
        input_schema: inputOf(c),
        command: [doc.tool, ...c.name.split(" "), "--params", "-", "--json", "--no-input"],
        ...(vars.length ? { env: Object.fromEntries([...new Set(vars)].sort().map((v) => [v, `\${${v}}`])) } : {}),
        side_effect: c.rw === "write" ? "external" : "read",
        // A pipeline stage may crawl a site or call a model; a lookup answers at once.
        timeout_ms: c.tier === 2 || c.rw === "write" ? 600_000 : 60_000,
      };
    }
  return { schema: 1, tools: Object.fromEntries(Object.entries(tools).sort(([a], [b]) => (a < b ? -1 : 1))) };
}
