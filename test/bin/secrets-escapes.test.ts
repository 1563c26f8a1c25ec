/**
 * Where a secret could leave before, each through the compiled binaries:
 * a key sent to an endpoint the caller named (CLI and MCP), a note id cut
 * from a secret title, an upstream echoing a key in another form, a plan
 * carrying a secret, and a mask inside a URL masked twice. The harness's own
 * secrets are in harness-secrets.test.ts; the sweep over every door and
 * file in canary-sweep.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { attacker, type Attacker } from "../helpers/attacker.ts";
import { baseEnv, binary, root, run } from "../helpers/bin.ts";
import { chatServer, type ChatServer } from "../helpers/chat-server.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { leakFolded } from "../helpers/leak.ts";
import { knowledgeBase } from "../helpers/notes-repo.ts";

const KEY = `sk-or-v1-${randomBytes(24).toString("hex")}`;
const HEX_SECRET = randomBytes(32).toString("hex"); // 64 hex characters, as many services issue
/** A secret's slice this long is the redactor's unit: anything shorter is not the secret given away. */
const SLICE = 16;
const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

const servers: { stop(): void }[] = [];
const clients: Client[] = [];
afterAll(async () => {
  for (const s of servers) s.stop();
  for (const c of clients) await c.close();
}, SLOW_HOOK);

let audited: string;
beforeAll(async () => {
  audited = tmp("escapes-");
  for (const stage of [
    ["crawl", "--dir", join(root, "examples", "site"), "--base-url", "https://harbour.example"],
    ["extract"],
    ["audit"],
    ["score"],
  ])
    expect((await run(binary("seo"), [...stage, "--run-dir", audited, "--json"])).code).toBe(0);
}, SLOW_HOOK);

const listen = (): Attacker => {
  const a = attacker();
  servers.push(a);
  return a;
};
const chat = (answers: Parameters<typeof chatServer>[0]): ChatServer => {
  const s = chatServer(answers);
  servers.push(s);
  return s;
};

describe("escape 2: no caller chooses where the LLM key goes", () => {
  test("seo synthesize --base-url naming another endpoint: not a flag, and not one byte of the key reaches it", async () => {
    const evil = listen();
    const own = chat([{ content: '{"summary":"ok","actions":[]}' }]);
    const r = await run(
      binary("seo"),
      ["synthesize", "--run-dir", audited, "--base-url", evil.url, "--model", "openai/gpt-4o-mini", "--json"],
      { env: { OPENROUTER_API_KEY: KEY, AGENT_LLM_BASE_URL: own.url } },
    );
    expect({ received: evil.received().length, leak: leakFolded(KEY, evil.received()) }).toEqual({
      received: 0,
      leak: 0,
    });
    expect(r.json.error?.code).toBe("UNKNOWN_FLAG");
  });

  test("over MCP, seo_synthesize takes no base URL: a call naming one sends the attacker nothing", async () => {
    const evil = listen();
    const own = chat([{ content: '{"summary":"ok","actions":[]}' }]);
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: binary("seo"),
        args: ["--mcp"],
        env: baseEnv({ OPENROUTER_API_KEY: KEY, AGENT_LLM_BASE_URL: own.url }),
        stderr: "pipe",
      }),
    );
    clients.push(client);
    const tool = (await client.listTools()).tools.find((t) => t.name === "seo_synthesize")!;
    expect(Object.keys(tool.inputSchema.properties ?? {}).filter((k) => /base/i.test(k))).toEqual([]);
    for (const name of ["base-url", "base_url", "baseUrl"])
      await client.callTool({
        name: "seo_synthesize",
        arguments: { "run-dir": audited, [name]: evil.url, model: "openai/gpt-4o-mini" },
      });
    expect(evil.received()).toBe("");
  });

  test("the key goes to the endpoint its environment names, and only there", async () => {
    const own = chat([{ content: '{"summary":"ok","actions":[]}' }]);
    const r = await run(binary("seo"), ["synthesize", "--run-dir", audited, "--json"], {
      env: { OPENROUTER_API_KEY: KEY, AGENT_LLM_BASE_URL: own.url },
    });
    expect(r.code).toBe(0);
    expect(own.requests.map((q) => q.authorization)).toEqual([`Bearer ${KEY}`]);
  });
});

describe("escape 4: a note id is never cut from a secret", () => {
  test("brain note create --title $SECRET: refused naming the field; no 16-character slice in stdout, stderr, plan.json or the ledger", async () => {
    const kb = knowledgeBase();
    const r = await kb.brain(["note", "create", "--repo", kb.repo, "--title", HEX_SECRET, "--run-dir", kb.run], {
      CANARY_API_KEY: HEX_SECRET,
    });
    const files = existsSync(kb.run) ? readdirSync(kb.run).map((f) => readFileSync(join(kb.run, f), "latin1")) : [];
    expect(leakFolded(HEX_SECRET, r.stdout, r.stderr, ...files)).toBeLessThan(SLICE);
    expect(r.json.error?.code).toBe("INVALID_INPUT");
    expect(r.json.error.detail.field).toMatch(/^items\[0\]\./);
  });

  test("over MCP, brain_create_note with the secret as its title answers no slice of it", async () => {
    const kb = knowledgeBase();
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: binary("brain"),
        args: ["--mcp"],
        env: baseEnv({ ...kb.env, CANARY_API_KEY: HEX_SECRET }),
        stderr: "pipe",
      }),
    );
    clients.push(client);
    const answer = await client.callTool({
      name: "brain_create_note",
      arguments: { repo: kb.repo, title: HEX_SECRET, "run-dir": kb.run },
    });
    expect(leakFolded(HEX_SECRET, JSON.stringify(answer))).toBeLessThan(SLICE);
    expect(JSON.stringify(answer)).toContain("INVALID_INPUT");
  });
});

describe("defect 1: an upstream's echo of the key in another form is masked", () => {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const echoes = {
    "Basic base64(api:KEY)": `Basic ${b64(`api:${KEY}`)}`,
    "base64 two bytes in": b64(`xy${KEY}`),
    "base64url one byte in": Buffer.from(`x${KEY}`).toString("base64url"),
    "hex, upper case": Buffer.from(KEY).toString("hex").toUpperCase(),
    "upper case": KEY.toUpperCase(),
    "the last 40": KEY.slice(-40),
    "a middle slice": KEY.slice(12, 40),
    "split by a space": `${KEY.slice(0, 20)} ${KEY.slice(20)}`,
    "split by a line break": `${KEY.slice(0, 33)}\n${KEY.slice(33)}`,
  };
  for (const [form, echo] of Object.entries(echoes))
    test(`a 401 echoing the key as ${form}: no 16-character slice of it in stdout or stderr`, async () => {
      const server = chat([{ status: 401, body: `refused: ${echo}` }]);
      const r = await run(binary("seo"), ["synthesize", "--run-dir", audited, "--json"], {
        env: { OPENROUTER_API_KEY: KEY, AGENT_LLM_BASE_URL: server.url },
      });
      expect(r.json.error?.code).toBe("CREDENTIAL_REJECTED");
      expect(leakFolded(KEY, r.stdout, r.stderr)).toBeLessThan(SLICE);
      expect(r.json.error.message).toContain("[REDACTED]");
    });
});

describe("defect 2: plan.json never carries a secret", () => {
  test("brain note create --body holding a key: INVALID_INPUT naming items[0].params.body, and no plan.json holds it", async () => {
    const kb = knowledgeBase();
    const r = await kb.brain(
      [
        "note",
        "create",
        "--repo",
        kb.repo,
        "--title",
        "Deploy notes",
        "--body",
        `the key is ${KEY}`,
        "--run-dir",
        kb.run,
      ],
      { OPENROUTER_API_KEY: KEY },
    );
    const plan = join(kb.run, "plan.json");
    expect(leakFolded(KEY, r.stdout, r.stderr, existsSync(plan) ? readFileSync(plan, "utf8") : "")).toBeLessThan(SLICE);
    expect([r.json.error?.code, r.json.error?.detail?.field]).toEqual(["INVALID_INPUT", "items[0].params.body"]);
  });

  test("seo plan over a page whose prose holds a key (the meta description it would copy): refused naming the field; plan.json holds no slice", async () => {
    const site = tmp("secret-site-");
    const prose = `Our garden spades are forged from one piece of steel, and the shop's account key ${KEY} sits in this paragraph by mistake, beside handles of ash that last a lifetime in any weather.`;
    writeFileSync(
      join(site, "index.html"),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Harbour garden tools</title><link rel="canonical" href="https://harbour.example/"></head><body><h1>Harbour tools</h1><p>${prose}</p></body></html>`,
    );
    const dir = tmp("secret-site-run-");
    const env = { OPENROUTER_API_KEY: KEY };
    for (const stage of [["crawl", "--dir", site, "--base-url", "https://harbour.example"], ["extract"], ["audit"]])
      expect((await run(binary("seo"), [...stage, "--run-dir", dir, "--json"], { env })).code).toBe(0);
    const r = await run(binary("seo"), ["plan", "--run-dir", dir, "--json"], { env });
    expect(leakFolded(KEY, r.stdout, r.stderr, readFileSync(join(dir, "plan.json"), "utf8"))).toBeLessThan(SLICE);
    expect(r.json.error?.code).toBe("INVALID_INPUT");
    expect(r.json.error.detail.field).toMatch(/^items\[\d+\]\.(params|reason)/);
  });
});

describe("defect 9: a mask inside a URL", () => {
  test("a secret in a URL's query is [REDACTED], never masked twice into [REDA_…", async () => {
    const r = await run(
      binary("seo"),
      [
        "crawl",
        "--dir",
        join(root, "examples", "site"),
        "--base-url",
        `ftp://x.example/?token=${HEX_SECRET}`,
        "--json",
      ],
      { env: { CANARY_API_KEY: HEX_SECRET } },
    );
    expect(r.json.error?.got).toBe("ftp://x.example/?token=[REDACTED]");
  });
});
