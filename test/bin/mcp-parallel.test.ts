/**
 * Agents call tools in parallel. Through the SDK's client against the
 * compiled binaries: 20 saves at once through one memory server, 20 notes
 * planned at once and then applied by 20 processes at once, and 4 applies of
 * distinct plans racing on one repository: every one committed once, none
 * lost, no error. Looped (AGENT_KIT_PARALLEL_ROUNDS; one round under `npm test`, three under
 * `npm run soak`; the counts are printed per round).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseEnv, binary, run } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { rounds } from "../helpers/rounds.ts";
import { knowledgeBase, type KnowledgeBase } from "../helpers/notes-repo.ts";

const ROUNDS = Number(process.env.AGENT_KIT_PARALLEL_ROUNDS ?? rounds(1, 3));
const AT_ONCE = 20;

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients.splice(0)) await c.close();
}, SLOW_HOOK);

async function connect(args: string[], env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: binary("brain"), args: ["--mcp", ...args], env: baseEnv(env), stderr: "pipe" }),
  );
  clients.push(client);
  return client;
}

const text = (r: any): string => r.content[0].text;

/**
 * Twenty saves wait their turn in one queue: the last waits for the nineteen before it, which on a busy
 * machine is longer than the SDK's 60 s default. The server's heartbeat (every 5 s) keeps a client that
 * takes progress and counts its timeout from the last one waiting, as an agent platform running parallel
 * calls should; 30 s between two signs of life is the bound here.
 */
const WAITING = { onprogress: () => {}, resetTimeoutOnProgress: true, timeout: 30_000 } as const;

/** How many commits carry each idempotency key, and how many keys there are. */
function commitsPerKey(k: KnowledgeBase): number[] {
  const keys = k
    .git("log", "--format=%(trailers:key=Idempotency-Key,valueonly)")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return [...Map.groupBy(keys, (key) => key).values()].map((v) => v.length);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("calls in parallel on one repository", () => {
  test(`${AT_ONCE} mem_save_turn and ${AT_ONCE} mem_save_fact at once through one memory server: every save committed once, none lost, no error`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const k = knowledgeBase({ maxItems: 10 });
      const client = await connect(["--profile", "memory"], k.env);
      const turns = await Promise.all(
        range(AT_ONCE).map((i) =>
          client.callTool(
            {
              name: "mem_save_turn",
              arguments: { sessionKey: "s", messages: [{ role: "user", content: `turn ${i}` }] },
            },
            undefined,
            WAITING,
          ),
        ),
      );
      const facts = await Promise.all(
        range(AT_ONCE).map((i) =>
          client.callTool({ name: "mem_save_fact", arguments: { fact: `fact number ${i}` } }, undefined, WAITING),
        ),
      );
      const errors = [...turns, ...facts].filter((r) => r.isError).map(text);
      const notes = readdirSync(join(k.repo, "notes")).filter((f) => f.startsWith("turn-s-"));
      const profile = text(await client.callTool({ name: "mem_context", arguments: { query: "" } }));
      const perKey = commitsPerKey(k);
      console.log(
        `round ${round + 1}/${ROUNDS}: ${AT_ONCE} turns, ${AT_ONCE} facts: ${errors.length} errors, ${notes.length} turn notes, ${range(AT_ONCE).filter((i) => profile.includes(`- fact number ${i}\n`) || profile.endsWith(`- fact number ${i}`)).length} facts in the profile, ${perKey.length} commits (${perKey.filter((n) => n !== 1).length} keys not committed exactly once)`,
      );
      expect(errors.slice(0, 3)).toEqual([]);
      expect(notes.length).toBe(AT_ONCE);
      for (const i of range(AT_ONCE)) expect(profile).toContain(`- fact number ${i}`);
      expect(perKey.length).toBe(2 * AT_ONCE);
      expect(perKey.every((n) => n === 1)).toBe(true);
      expect(k.git("status", "--porcelain", "--untracked-files=all")).toBe("");
      await client.close();
    }
  }, 600_000);

  test(`${AT_ONCE} brain_create_note at once over MCP, applied by ${AT_ONCE} processes at once; 4 applies of distinct plans racing: every item committed once, no error`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const k = knowledgeBase({ maxItems: 10 });
      const client = await connect([], k.env);
      const runs = range(AT_ONCE).map((i) => join(k.dir, `run-${i}`));
      const planned = await Promise.all(
        runs.map((r, i) =>
          client.callTool(
            {
              name: "brain_create_note",
              arguments: { title: `Parallel ${i}`, body: `note ${i}`, "run-dir": r },
            },
            undefined,
            WAITING,
          ),
        ),
      );
      expect(planned.filter((p) => p.isError).map(text)).toEqual([]);
      const reviewed = await Promise.all(
        runs.map((r) => run(binary("gate"), ["review", "--plan", r, "--json"], { env: k.env, timeoutMs: 120_000 })),
      );
      expect(reviewed.map((r) => r.code).filter((c) => c !== 0)).toEqual([]);
      const applied = await Promise.all(
        runs.map((r) => run(binary("brain"), ["apply", "--plan", r, "--json"], { env: k.env, timeoutMs: 120_000 })),
      );
      const failed = applied.filter((a) => a.code !== 0).map((a) => a.stdout.slice(0, 300));

      // Four more plans of distinct notes (a delete of two each, an update), applied by four processes at once.
      const four = await Promise.all(
        [
          ["note", "delete", "--id", "parallel-0", "--id", "parallel-1"],
          ["note", "delete", "--id", "parallel-2", "--id", "parallel-3"],
          ["note", "update", "--id", "parallel-4", "--body", "changed"],
          ["note", "update", "--id", "parallel-5", "--body", "changed"],
        ].map(async (args, i) => {
          const r = join(k.dir, `four-${i}`);
          const p = await k.brain([...args, "--run-dir", r]);
          expect(p.json.error).toBeNull();
          expect((await k.gate(["review", "--plan", r])).code).toBe(0);
          return r;
        }),
      );
      const raced = await Promise.all(
        four.map((r) => run(binary("brain"), ["apply", "--plan", r, "--json"], { env: k.env, timeoutMs: 120_000 })),
      );
      failed.push(...raced.filter((a) => a.code !== 0).map((a) => a.stdout.slice(0, 300)));
      const perKey = commitsPerKey(k);
      console.log(
        `round ${round + 1}/${ROUNDS}: ${AT_ONCE} plans over MCP, ${AT_ONCE} + 4 applies at once: ${failed.length} failed, ${perKey.length} commits (${perKey.filter((n) => n !== 1).length} keys not committed exactly once)`,
      );
      expect(failed).toEqual([]);
      expect(perKey.length).toBe(AT_ONCE + 6);
      expect(perKey.every((n) => n === 1)).toBe(true);
      expect(k.git("status", "--porcelain", "--untracked-files=all")).toBe("");
      expect(readdirSync(join(k.repo, "notes")).filter((f) => f.startsWith("parallel-")).length).toBe(AT_ONCE - 4);
      await client.close();
    }
  }, 600_000);
});
