/**
 * The sweep's MCP door: each tool's server (`<tool> --mcp`, the full
 * profile) driven by the official SDK client, every command called twice with
 * its free arguments carrying the two payloads. Every answer, error or not,
 * and the server's stderr are what left.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseEnv, binary } from "./bin.ts";
import { type Canaries, payloads } from "./canaries.ts";
import type { Place, Target } from "./canary-sweep.ts";

/** `note create` is `brain_create_note`: verb first, then the resource. */
const toolName = (t: Target): string => [t.tool, t.words.at(-1), ...t.words.slice(0, -1)].join("_");

/** The base flags as MCP arguments: `--repo X` is `{ repo: "X" }`. */
function argsOf(base: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < base.length; i += 2) out[base[i]!.replace(/^--/, "")] = base[i + 1]!;
  return out;
}

export async function mcpSweep(
  list: Target[],
  c: Canaries,
  env: Record<string, string>,
  root: string,
): Promise<Place[]> {
  const places: Place[] = [];
  const secrets = [c.generic, c.llm, c.harness, c.storage];
  let n = 0;
  for (const tool of [...new Set(list.map((t) => t.tool))]) {
    let stderr = "";
    const transport = new StdioClientTransport({
      command: binary(tool),
      args: ["--mcp"],
      env: baseEnv(env),
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("latin1")));
    const client = new Client({ name: "canary-sweep", version: "1.0.0" });
    await client.connect(transport);
    const offered = new Set((await client.listTools()).tools.map((t) => t.name));
    for (const t of list.filter((x) => x.tool === tool)) {
      const name = toolName(t);
      if (!offered.has(name)) {
        places.push({ door: "MCP", what: `${name} (not offered)`, text: "" });
        continue;
      }
      for (const [k, payload] of payloads(secrets[n++ % secrets.length]!).entries()) {
        const base = t.tool === "seo" ? t.base : [...t.base, "--run-dir", join(root, "mcp", `${name}-${k}`)];
        const args = { ...argsOf(base), ...Object.fromEntries(t.free.map((f) => [f, payload])) };
        const answer = await client.callTool({ name, arguments: args }).catch((e: Error) => ({ thrown: e.message }));
        places.push({
          door: "MCP",
          what: `${name} (${k ? "second" : "first"} four encodings)`,
          text: JSON.stringify(answer),
        });
      }
    }
    await client.close();
    places.push({ door: "MCP", what: `${tool} --mcp's stderr`, text: stderr });
  }
  return places;
}
