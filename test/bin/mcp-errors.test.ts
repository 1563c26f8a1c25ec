/**
 * One error channel per door, through the SDK's client against the compiled
 * binaries: every tool failure is `isError` with the contract's error object
 * (its hint in argument names), JSON-RPC errors only for protocol faults; a
 * server that cannot work does not start (exit 1, one line on stderr); an
 * oversized message is refused and the server goes on serving.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseEnv, binary } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { serveChild } from "../helpers/mcp-child.ts";
import { knowledgeBase } from "../helpers/notes-repo.ts";

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients.splice(0)) await c.close();
}, SLOW_HOOK);

async function connect(tool: string, args: string[], env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: binary(tool), args: ["--mcp", ...args], env: baseEnv(env), stderr: "pipe" }),
  );
  clients.push(client);
  return client;
}

const errorOf = (r: any): any =>
  r.isError ? JSON.parse(r.content[0].text) : { notAnError: r.content?.[0]?.text?.slice(0, 200) };
/** A call's outcome as the door shows it: a tool error (isError), or a JSON-RPC error. */
const outcome = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }).then(
    (r) => ({ isError: r.isError === true, code: errorOf(r).code as string }),
    (e: { code: number }) => ({ jsonRpc: e.code }),
  );

describe("the memory profile's error channel", () => {
  test("a repository gone after the start: mem_context, mem_search, mem_save_fact and mem_save_turn each answer isError, none a JSON-RPC error", async () => {
    const k = knowledgeBase();
    const client = await connect("brain", ["--profile", "memory"], k.env);
    renameSync(k.repo, `${k.repo}-moved`);
    for (const [name, args] of [
      ["mem_context", { query: "harbour" }],
      ["mem_context", { query: "" }],
      ["mem_search", { query: "harbour" }],
      ["mem_save_fact", { fact: "x" }],
      ["mem_save_turn", { role: "user", content: "x" }],
    ] as const)
      expect({ name, ...(await outcome(client, name, args)) }).toEqual({ name, isError: true, code: "INVALID_INPUT" });
  });

  test("a server with no usable repository does not start: exit 1 and one line on stderr (unset, missing, not a repository)", async () => {
    const k = knowledgeBase();
    const cases: [string, Record<string, string>][] = [
      ["unset", { ...k.env, AGENT_BRAIN_REPO: "" }],
      ["missing", { ...k.env, AGENT_BRAIN_REPO: join(k.dir, "nowhere") }],
      ["not a repository", { ...k.env, AGENT_BRAIN_REPO: mkdtempSync(join(tmpdir(), "plain-")) }],
    ];
    for (const [why, env] of cases) {
      const client = new Client({ name: "test", version: "1.0.0" });
      const refused = await client
        .connect(
          new StdioClientTransport({
            command: binary("brain"),
            args: ["--mcp", "--profile", "memory"],
            env: baseEnv(env),
            stderr: "pipe",
          }),
        )
        .then(
          () => "connected",
          () => "refused",
        );
      const p = Bun.spawnSync([binary("brain"), "--mcp", "--profile", "memory"], {
        env: baseEnv(env),
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const lines = p.stderr.toString().trimEnd().split("\n");
      expect({ why, refused, exit: p.exitCode, lines: lines.length, stdout: p.stdout.toString() }).toEqual({
        why,
        refused: "refused",
        exit: 1,
        lines: 1,
        stdout: "",
      });
      expect(lines[0]).toStartWith("brain: the memory profile cannot start: ");
    }
  });

  test("mem_context without its required query, and mem_save_fact with a fact beside tool-role messages, are refused (isError), and nothing is saved", async () => {
    const k = knowledgeBase();
    const client = await connect("brain", ["--profile", "memory"], k.env);
    expect(await outcome(client, "mem_context", {})).toEqual({ isError: true, code: "MISSING_FLAG" });
    const both = await client.callTool({
      name: "mem_save_fact",
      arguments: { fact: "likes tea", messages: [{ role: "tool", content: "secret output" }] },
    });
    expect([both.isError, errorOf(both).code, errorOf(both).message]).toEqual([
      true,
      "INVALID_VALUE",
      "mem_save_fact takes user and assistant messages only (got role 'tool')",
    ]);
    expect(
      await outcome(client, "mem_save_fact", {
        fact: "likes tea",
        messages: [{ role: "user", content: "I like tea" }],
      }),
    ).toEqual({ isError: true, code: "INVALID_VALUE" });
    expect(k.git("rev-list", "--count", "HEAD").trim()).toBe("1");
  });

  test("a 10 MB message gets a JSON-RPC error naming the bound, a line on stderr, and the server goes on serving", async () => {
    const k = knowledgeBase();
    const server = await serveChild("brain", ["--profile", "memory"], k.env);
    const big = await server.client
      .callTool({ name: "mem_search", arguments: { query: "x".repeat(10 * 1024 * 1024) } })
      .then(
        () => null,
        (e: { code: number; message: string }) => e,
      );
    expect(big?.code).toBe(-32600);
    expect(big?.message).toContain("at most 10485760");
    const after = await server.client.callTool({ name: "mem_search", arguments: { query: "harbour" } });
    expect(after.isError).toBeFalsy();
    expect((after.content as { text: string }[])[0]!.text).toContain("harbour");
    await server.client.close();
    expect(await server.proc.exited).toBe(0);
    expect(await server.stderr).toContain("refused a message (id");
  });
});

describe("the command servers' error channel", () => {
  test("a failed command is isError with a hint in argument names, never a flag to add; an unknown tool is a JSON-RPC error", async () => {
    const k = knowledgeBase();
    const brain = await connect("brain", [], k.env);
    const missing = await brain.callTool({ name: "brain_get_note", arguments: {} });
    expect([missing.isError, errorOf(missing).code]).toEqual([true, "MISSING_FLAG"]);
    expect(errorOf(missing).hint).toContain('"id"');
    const seo = await connect("seo", [], {});
    const noRun = await seo.callTool({ name: "seo_list_finding", arguments: { "run-dir": join(k.dir, "empty") } });
    for (const r of [missing, noRun])
      expect(
        errorOf(r)
          .hint.split("`")
          .filter((_: string, i: number) => i % 2 === 0)
          .join(""),
      ).not.toMatch(/(^|\s)--[a-z]/);
    expect(await outcome(seo, "seo_no_such_tool", {})).toEqual({ jsonRpc: -32602 });
  });
});
