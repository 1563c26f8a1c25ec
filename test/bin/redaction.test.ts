/**
 * Redaction at the compiled binaries' doors: an upstream's refusal that
 * echoes the key is redacted before it is cut (seo synthesize against a real
 * chat server on 127.0.0.1), and the text an MCP server writes itself (an
 * unknown tool's name, a resource's uri and its -32002 message, mem_context's
 * heading) passes the same redactor as the commands' answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseEnv, binary, root, run } from "../helpers/bin.ts";
import { chatServer, type ChatServer } from "../helpers/chat-server.ts";
import { echoing, formsOf, leakOf, offsetsOf } from "../helpers/leak.ts";
import { knowledgeBase } from "../helpers/notes-repo.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const MASK_KEEPS = 8;
const servers: ChatServer[] = [];
const clients: Client[] = [];
afterAll(async () => {
  for (const s of servers) s.stop();
  for (const c of clients) await c.close();
}, SLOW_HOOK);

describe("seo synthesize: a 401 that echoes the key", () => {
  let audited: string;
  beforeAll(async () => {
    audited = mkdtempSync(join(tmpdir(), "synth-"));
    for (const stage of [
      ["crawl", "--dir", join(root, "examples", "site"), "--base-url", "https://harbour.example"],
      ["extract"],
      ["audit"],
      ["score"],
    ]) {
      const r = await run(binary("seo"), [...stage, "--run-dir", audited, "--json"]);
      expect(r.code).toBe(0);
    }
  }, SLOW_HOOK);

  // A key as a provider issues it, and a secret whose JSON and URL forms differ from it.
  for (const key of ["sk-or-v1-CANARYOR0a1b2c3d4e5f6a7b8c9d0e1f2a3b", 'sk-or-v1-CANARY"0a1b\\2c3d/4e5f+6a7b&8c9d=0e'])
    test(`cut at 200 at every offset of every form of ${JSON.stringify(key)}: at most 8 characters of it leave the binary`, async () => {
      // Every offset of the key as it is and JSON-escaped; the edges and the middle of its encoded forms (every offset of those is cut in-process, test/kit/redact-cut.test.ts).
      const exact = new Set([key, JSON.stringify(key).slice(1, -1)]);
      const sampled = (form: string) => [...new Set([0, 1, 8, 16, form.length >> 1, form.length - 1, form.length])];
      const cases = formsOf(key).flatMap((form) =>
        (exact.has(form) ? offsetsOf(form) : sampled(form)).map((offset) => ({ form, offset })),
      );
      const leaks: string[] = [];
      // Four at a time, each against its own server answering 401 with the key in one form.
      for (let i = 0; i < cases.length; i += 4)
        await Promise.all(
          cases.slice(i, i + 4).map(async ({ form, offset }) => {
            const server = chatServer([{ status: 401, body: echoing(form, offset, 200) }]);
            servers.push(server);
            const r = await run(
              binary("seo"),
              ["synthesize", "--run-dir", audited, "--model", "openai/gpt-4o-mini", "--json"],
              { env: { OPENROUTER_API_KEY: key, AGENT_LLM_BASE_URL: server.url } },
            );
            server.stop();
            expect(r.json.error?.code).toBe("CREDENTIAL_REJECTED");
            const leak = leakOf(key, r.stdout, r.stderr, r.json.error.message);
            if (leak > MASK_KEEPS)
              leaks.push(`${leak} characters, form ${JSON.stringify(form)} cut at ${offset}: ${r.json.error.message}`);
          }),
        );
      expect(leaks).toEqual([]);
      expect(cases.length).toBeGreaterThan(50);
    }, 120_000);
});

describe("an MCP server's own text passes the redactor", () => {
  const CANARY = "canary-MCPSECRET-0a1b2c3d4e5f";
  const SHAPED = "sk-or-v1-0123456789abcdefABCDEF";
  const connect = async (tool: string, args: string[], env: Record<string, string>) => {
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: binary(tool),
        args: ["--mcp", ...args],
        env: baseEnv({ ...env, CANARY_API_KEY: CANARY }),
        stderr: "pipe",
      }),
    );
    clients.push(client);
    return client;
  };
  const failureOf = async (p: Promise<unknown>): Promise<{ code: number; message: string }> => {
    const e = (await p.then(() => null).catch((x) => x)) as { code: number; message: string } | null;
    if (!e) throw new Error("the request succeeded");
    return e;
  };
  /** Whether a text gives away more of either secret than the mask keeps. */
  const leaks = (text: string) => leakOf(CANARY, text) > MASK_KEEPS || leakOf(SHAPED, text) > MASK_KEEPS;

  test("brain's memory profile: an unknown tool, an unknown resource (-32002), a search resource's uri and mem_context's heading hold no secret", async () => {
    const kb = knowledgeBase();
    const client = await connect("brain", ["--profile", "memory"], kb.env);
    const unknownTool = await failureOf(client.callTool({ name: `mem_${CANARY} ${SHAPED}`, arguments: {} }));
    expect(unknownTool.code).toBe(-32602);
    expect(unknownTool.message).toContain("sk-or-v1_REDACTED");
    const unknownResource = await failureOf(client.readResource({ uri: `mem://${CANARY}/${SHAPED}` }));
    expect(unknownResource.code).toBe(-32002);
    const search = await client.readResource({ uri: `mem://search?q=${CANARY}+${SHAPED}` });
    const context = await client.callTool({ name: "mem_context", arguments: { query: `${CANARY} ${SHAPED}` } });
    const contextText = (context.content as { text: string }[])[0]!.text;
    expect(contextText).toContain("## Matches for");
    for (const text of [unknownTool.message, unknownResource.message, JSON.stringify(search), contextText])
      expect({ text, leaks: leaks(text) }).toEqual({ text, leaks: false });
  });

  test("seo's commands profile: an unknown tool's name is redacted in the error", async () => {
    const unknownTool = await failureOf(
      (await connect("seo", [], {})).callTool({ name: `x_${CANARY}`, arguments: {} }),
    );
    expect(unknownTool.code).toBe(-32602);
    expect(unknownTool.message).toContain("x_[REDACTED]");
    expect(leaks(unknownTool.message)).toBe(false);
  });
});
