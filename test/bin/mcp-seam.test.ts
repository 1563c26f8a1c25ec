/**
 * What a model reads over MCP, with the official SDK's client against the
 * compiled seo: the text carries the cursor, the truncation hint and the next
 * steps beside the data; the data is served once unless the host asked for
 * structured content; and a call longer than the client's timeout completes,
 * because the server sends progress while the command works.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseEnv, binary, root } from "../helpers/bin.ts";
import { page, serveSite } from "../helpers/site-server.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
}, SLOW_HOOK);

async function connect(args: string[] = []): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: binary("seo"), args: ["--mcp", ...args], env: baseEnv(), stderr: "pipe" }),
  );
  clients.push(client);
  return client;
}

const RUN = mkdtempSync(join(tmpdir(), "mcp-seam-"));
cpSync(join(root, "test", "fixtures", "seo-run"), RUN, { recursive: true });
type Text = { type: string; text: string }[];

describe("the text a model reads", () => {
  test("a cut list: the data, then {meta} with the cursor, the hint and next; the data once", async () => {
    const client = await connect();
    const tools = (await client.listTools()).tools;
    expect(tools.every((t) => t.outputSchema === undefined)).toBe(true);
    expect(tools.find((t) => t.name === "seo_list_finding")!.description).toContain('{"meta":{next_cursor');
    const r = await client.callTool({ name: "seo_list_finding", arguments: { "run-dir": RUN, limit: 2 } });
    const content = r.content as Text;
    expect(r.structuredContent).toBeUndefined();
    expect(content.length).toBe(2);
    expect(JSON.parse(content[0]!.text).items.length).toBe(2);
    const { meta } = JSON.parse(content[1]!.text);
    const full = (r._meta as { meta: { pagination: { next_cursor: string }; truncation_hint: string } }).meta;
    expect(meta.truncated).toBe(true);
    expect(meta.next_cursor).toBe(full.pagination.next_cursor);
    expect(meta.truncation_hint).toBe(full.truncation_hint);
    // The cursor from the text continues the list.
    const rest = await client.callTool({
      name: "seo_list_finding",
      arguments: { "run-dir": RUN, limit: 2, cursor: meta.next_cursor },
    });
    expect(JSON.parse((rest.content as Text)[0]!.text).items[0].id).not.toBe(JSON.parse(content[0]!.text).items[0].id);
  }, 120_000);

  test("a host that asks (--structured) gets outputSchema and structuredContent", async () => {
    const client = await connect(["--structured"]);
    expect((await client.listTools()).tools.every((t) => t.outputSchema !== undefined)).toBe(true);
    const r = await client.callTool({ name: "seo_list_finding", arguments: { "run-dir": RUN, limit: 2 } });
    expect(r.structuredContent).toEqual(JSON.parse((r.content as Text)[0]!.text));
  }, 120_000);
});

describe("progress", () => {
  test("a crawl longer than the client's timeout completes: the server sends progress and the client resets its timeout", async () => {
    const links = Array.from({ length: 8 }, (_, i) => `<a href="/p${i}.html">p${i}</a>`).join(" ");
    const routes: Record<string, { body: string; headers?: Record<string, string> }> = {
      "/robots.txt": { body: "User-agent: *\nCrawl-delay: 0.6\n", headers: { "content-type": "text/plain" } },
      "/": { body: page({ title: "Home", body: links }) },
    };
    for (let i = 0; i < 8; i++) routes[`/p${i}.html`] = { body: page({ title: `Page ${i}`, body: "words" }) };
    const site = serveSite(routes);
    try {
      const client = await connect();
      const messages: string[] = [];
      const started = performance.now();
      const r = await client.callTool(
        { name: "seo_crawl", arguments: { url: `${site.url}/`, "run-dir": mkdtempSync(join(tmpdir(), "mcp-crawl-")) } },
        undefined,
        {
          timeout: 2000,
          resetTimeoutOnProgress: true,
          onprogress: (p) => messages.push(String(p.message)),
        },
      );
      const took = performance.now() - started;
      expect(r.isError).toBeFalsy();
      expect(JSON.parse((r.content as Text)[0]!.text).pages).toBe(9);
      expect(took).toBeGreaterThan(2000); // longer than the timeout: only progress kept it alive
      expect(messages[0]).toBe("started");
      expect(messages.length).toBeGreaterThanOrEqual(5);
      expect(messages.some((m) => /^crawled pages: \d+$/.test(m))).toBe(true);
      console.log(`seo_crawl: ${Math.round(took)} ms, ${messages.length} progress notifications`);
    } finally {
      site.stop();
    }
  }, 120_000);
});
