/**
 * `<tool> --mcp`, driven by the official SDK's client over stdio against the
 * compiled binaries: the tool list, both profiles, the same data and errors as
 * the argv door (structured content, which a host asks for with --structured), cursors, TOON text blocks, and a plan made over MCP that apply
 * still refuses without the gate.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { decode } from "@toon-format/toon";
import { baseEnv, binary, root, run } from "../helpers/bin.ts";
import { knowledgeBase } from "../helpers/notes-repo.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
}, SLOW_HOOK);

async function connect(tool: string, args: string[] = [], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: binary(tool), args: ["--mcp", ...args], env: baseEnv(env), stderr: "pipe" }),
  );
  clients.push(client);
  return client;
}

const RUN = mkdtempSync(join(tmpdir(), "mcp-run-"));
cpSync(join(root, "test", "fixtures", "seo-run"), RUN, { recursive: true });
const CREDENTIAL = /(^|[-_])(token|password|secret|api[-_]?key|credential|auth)/i;

describe("seo --mcp", () => {
  test("lists every command, verb first and sorted, the same bytes twice; read-only lists no write", async () => {
    const full = await connect("seo");
    const first = await full.listTools();
    const second = await full.listTools();
    expect(JSON.stringify(first)).toBe(JSON.stringify(second));
    const names = first.tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain("seo_list_finding");
    expect(names).toContain("seo_plan");
    for (const t of first.tools) {
      expect(Object.keys((t.inputSchema.properties ?? {}) as object).filter((k) => CREDENTIAL.test(k))).toEqual([]);
      expect(t.annotations?.readOnlyHint).toBe(!t.annotations?.destructiveHint);
    }
    const readOnly = await connect("seo", ["--profile", "read-only"]);
    const ro = (await readOnly.listTools()).tools;
    expect(ro.every((t) => t.annotations?.readOnlyHint)).toBe(true);
    expect(ro.map((t) => t.name)).not.toContain("seo_plan");
    const refused = await readOnly.callTool({ name: "seo_plan", arguments: { "run-dir": RUN } });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content as { text: string }[])[0]!.text).code).toBe("POLICY_DENIED");
  });

  test("every case gives the data and the error the argv door gives", async () => {
    const client = await connect("seo", ["--structured"]);
    const cases: [string, Record<string, unknown>, string[]][] = [
      [
        "seo_list_finding",
        { "run-dir": RUN, severity: "high" },
        ["finding", "list", "--run-dir", RUN, "--severity", "high"],
      ],
      ["seo_list_page", { "run-dir": RUN, limit: 3 }, ["page", "list", "--run-dir", RUN, "--limit", "3"]],
      [
        "seo_get_page",
        { "run-dir": RUN, url: "https://harbour.example/about.html" },
        ["page", "get", "--run-dir", RUN, "--url", "https://harbour.example/about.html"],
      ],
      ["seo_audit", { severity: "urgent" }, ["audit", "--severity", "urgent"]],
      [
        "seo_get_page",
        { "run-dir": RUN, url: "https://harbour.example/nope.html" },
        ["page", "get", "--run-dir", RUN, "--url", "https://harbour.example/nope.html"],
      ],
      ["seo_list_finding", { "run-dir": RUN, limit: 0 }, ["finding", "list", "--run-dir", RUN, "--limit", "0"]],
      ["seo_list_finding", { "run-dir": RUN, nonsense: 1 }, ["finding", "list", "--run-dir", RUN, "--nonsense", "1"]],
    ];
    for (const [name, args, argv] of cases) {
      const viaArgv = (await run(binary("seo"), [...argv, "--json"])).json;
      const viaMcp = await client.callTool({ name, arguments: args });
      if (viaArgv.ok) expect({ name, data: viaMcp.structuredContent }).toEqual({ name, data: viaArgv.data });
      else {
        expect(viaMcp.isError).toBe(true);
        const error = JSON.parse((viaMcp.content as { text: string }[])[0]!.text);
        expect({ name, code: error.code, retryable: error.retryable }).toEqual({
          name,
          code: viaArgv.error.code,
          retryable: viaArgv.error.retryable,
        });
      }
    }
  });

  test("a list pages across two calls with the cursor the first returns", async () => {
    const client = await connect("seo", ["--structured"]);
    const one = await client.callTool({ name: "seo_list_finding", arguments: { "run-dir": RUN, limit: 5 } });
    const cursor = (one._meta as { meta: { pagination: { next_cursor: string } } }).meta.pagination.next_cursor;
    expect(cursor).toBeTruthy();
    const two = await client.callTool({ name: "seo_list_finding", arguments: { "run-dir": RUN, limit: 5, cursor } });
    const ids = (r: typeof one) => (r.structuredContent as { items: { id: string }[] }).items.map((i) => i.id);
    expect(ids(two).length).toBe(5);
    expect(ids(two).filter((i) => ids(one).includes(i))).toEqual([]);
  });

  test("TOON text blocks (--toon, or AGENT_MCP_OUTPUT_FORMAT=toon) decode to the structured content; an unknown format or profile fails the start", async () => {
    for (const client of [
      await connect("seo", ["--toon", "--structured"]),
      await connect("seo", [], { AGENT_MCP_OUTPUT_FORMAT: "toon", AGENT_MCP_STRUCTURED: "1" }),
    ]) {
      const r = await client.callTool({ name: "seo_list_finding", arguments: { "run-dir": RUN, limit: 3 } });
      const text = (r.content as { text: string }[])[0]!.text;
      expect(text.startsWith("{")).toBe(false);
      expect(decode(text) as unknown).toEqual(r.structuredContent);
    }
    for (const [args, env] of [
      [["--profile", "everything"], {}],
      [[], { AGENT_MCP_OUTPUT_FORMAT: "xml" }],
    ] as const) {
      const r = await run(binary("seo"), ["--mcp", ...args], { env });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n").length).toBe(1);
    }
  });
});

describe("brain --mcp", () => {
  test("a note planned over MCP is a plan: apply refuses it until the gate approves", async () => {
    const { dir, repo, git, env } = knowledgeBase();
    const client = await connect("brain", ["--structured"], env);
    const planned = await client.callTool({
      name: "brain_create_note",
      arguments: { repo, title: "Planned over MCP", body: "A body.", "run-dir": join(dir, "run") },
    });
    expect(planned.isError).toBeFalsy();
    expect(git("rev-list", "--count", "HEAD").trim()).toBe("1");
    const apply = await client.callTool({ name: "brain_apply", arguments: { plan: join(dir, "run") } });
    expect(apply.isError).toBe(true);
    expect(JSON.parse((apply.content as { text: string }[])[0]!.text).code).toBe("APPROVAL_REQUIRED");
    expect(git("rev-list", "--count", "HEAD").trim()).toBe("1");
    const found = await client.callTool({ name: "brain_search", arguments: { repo, query: "spade" } });
    expect((found.structuredContent as { items: unknown[] }).items.length).toBeGreaterThan(0);
  });
});

describe("brain --mcp --profile memory (the host-agent seed's memory server)", () => {
  const text = (r: Record<string, unknown>) => (r.content as { text: string }[])[0]!.text;

  test("lists the four memory tools and two resources; search, context and both resources read the repository", async () => {
    const kb = knowledgeBase();
    const client = await connect("brain", ["--profile", "memory"], kb.env);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      "mem_context",
      "mem_save_fact",
      "mem_save_turn",
      "mem_search",
    ]);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["mem://profile"]);
    expect((await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).toEqual([
      "mem://search?q={query}&topK={topK}",
    ]);
    const argv = (await kb.brain(["search", "--query", "sharpen", "--limit", "5"])).json.data.items.map(
      (i: any) => i.id,
    );
    const found = text(await client.callTool({ name: "mem_search", arguments: { query: "sharpen", topK: 0 } }));
    expect(found.split("\n").map((l) => /\(`([^`]+)`/.exec(l)?.[1])).toEqual(argv);
    expect(
      text(await client.callTool({ name: "mem_search", arguments: { query: "sharpen", topK: 1 } })).split("\n"),
    ).toHaveLength(1);
    const ctx = text(await client.callTool({ name: "mem_context", arguments: { query: "sharpen" } }));
    expect(ctx).toStartWith("## Profile\n\n_No profile yet");
    expect(ctx).toContain('## Matches for "sharpen"');
    const byResource = await client.readResource({ uri: "mem://search?q=sharpen&topK=5" });
    expect((byResource.contents[0] as { text: string }).text).toBe(found);
    expect(((await client.readResource({ uri: "mem://profile" })).contents[0] as { text: string }).text).toStartWith(
      "## Profile",
    );
  });

  test("failures as the seed says: a tool's is isError, an empty search resource -32603, an unknown resource -32002", async () => {
    const kb = knowledgeBase();
    const client = await connect("brain", ["--profile", "memory"], kb.env);
    const empty = await client.callTool({ name: "mem_search", arguments: { query: "" } });
    expect([empty.isError, JSON.parse(text(empty)).code]).toEqual([true, "MISSING_FLAG"]);
    const toolRole = await client.callTool({
      name: "mem_save_fact",
      arguments: { messages: [{ role: "tool", content: "ls output" }] },
    });
    expect([toolRole.isError, JSON.parse(text(toolRole)).message]).toEqual([
      true,
      "mem_save_fact takes user and assistant messages only (got role 'tool')",
    ]);
    const codeOf = async (uri: string) => (await client.readResource({ uri }).catch((e) => e)).code;
    expect([
      await codeOf("mem://search?q="),
      await codeOf("mem://nothing"),
      await codeOf("https://example.com/"),
    ]).toEqual([-32603, -32002, -32002]);
  });

  test("a save goes through the gate and apply where the policy approves (one commit), and waits for a person where it does not", async () => {
    const kb = knowledgeBase();
    const client = await connect("brain", ["--profile", "memory"], kb.env);
    const before = kb.git("rev-list", "--count", "HEAD").trim();
    const saved = await client.callTool({
      name: "mem_save_fact",
      arguments: { fact: "Prefers oil stones to diamond plates." },
    });
    expect(JSON.parse(text(saved))).toMatchObject({ saved: true, note: "profile", executed: 1 });
    const turn = await client.callTool({
      name: "mem_save_turn",
      arguments: {
        sessionKey: "S 1",
        messages: [
          { role: "user", content: "how do I flatten a stone?" },
          { role: "tool", content: "grep: 3 notes" },
        ],
      },
    });
    expect(JSON.parse(text(turn))).toMatchObject({ saved: true, executed: 1 });
    expect(Number(kb.git("rev-list", "--count", "HEAD").trim())).toBe(Number(before) + 2);
    const ctx = text(await client.callTool({ name: "mem_context", arguments: { query: "" } }));
    expect(ctx).toContain("- Prefers oil stones to diamond plates.");
    // A policy that approves nothing: the save answers with its plan, and nothing is committed.
    writeFileSync(
      kb.env.AGENT_POLICY_FILE!,
      JSON.stringify({
        version: "v2",
        max_items: 10,
        actions: {},
        tools: { brain: { fleet: true } },
        roots: { brain: [kb.dir] },
      }),
    );
    const waiting = await client.callTool({ name: "mem_save_fact", arguments: { fact: "Sharpens on Sundays." } });
    const refusal = JSON.parse(text(waiting));
    expect([waiting.isError, refusal.code]).toEqual([true, "APPROVAL_REQUIRED"]);
    expect(refusal.plan).toMatch(/plan\.json$/);
    expect(Number(kb.git("rev-list", "--count", "HEAD").trim())).toBe(Number(before) + 2);
  }, 120_000);
});
