/**
 * Trust at every door an agent calls through: MCP (the full, read-only and
 * memory profiles, with the official SDK's client), the declared-tools
 * manifest's command lines, and the harness's job steps, all against the
 * compiled binaries. An approval is a person's act: no door offers it, and
 * who approved comes from the key that signed, which the policy names. A
 * caller's value is a value: never a flag, whatever it starts with or how
 * long it is.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { sign } from "node:crypto";
import { approvalIdOf } from "../../src/kit/mutations/admit.ts";
import { approvalMessage } from "../../src/kit/mutations/plan.ts";
import { baseEnv, binary, dist, root, run } from "../helpers/bin.ts";
import { gateKeys } from "../helpers/mutation.ts";
import { knowledgeBase, type KnowledgeBase } from "../helpers/notes-repo.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
}, SLOW_HOOK);

async function connect(tool: string, args: string[], env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: binary(tool), args: ["--mcp", ...args], env: baseEnv(env), stderr: "pipe" }),
  );
  clients.push(client);
  return client;
}

const text = (r: Record<string, unknown>): string => (r.content as { text: string }[])[0]!.text;
const errorOf = (r: Record<string, unknown>): any => JSON.parse(text(r));
const commits = (kb: KnowledgeBase): number => Number(kb.git("rev-list", "--count", "HEAD").trim());
const planIn = (runDir: string): any => JSON.parse(readFileSync(join(runDir, "plan.json"), "utf8"));

/** A policy that auto-approves nothing in the knowledge base, naming `approvers`. */
function personPolicy(kb: KnowledgeBase, approvers: { name: string; public_key: string }[]): void {
  writeFileSync(
    kb.env.AGENT_POLICY_FILE!,
    JSON.stringify({
      version: "v1",
      max_items: 10,
      actions: {},
      tools: { brain: { fleet: true } },
      roots: { brain: [kb.dir] },
      approvers,
    }),
  );
}

async function plannedNote(kb: KnowledgeBase): Promise<void> {
  const r = await kb.brain([
    "note",
    "create",
    "--repo",
    kb.repo,
    "--title",
    "Self-approved",
    "--body",
    "A body.",
    "--run-dir",
    kb.run,
  ]);
  expect(r.code).toBe(0);
}

describe("an approval is a person's act, never the agent's", () => {
  test("gate --mcp lists no approve in any profile; gate_approve called by name is refused, and apply still refuses the plan", async () => {
    const kb = knowledgeBase();
    const ada = gateKeys();
    personPolicy(kb, [{ name: "Ada Lovelace", public_key: ada.publicKey }]);
    await plannedNote(kb);
    // Even a server holding a person's key offers no approval.
    const env = { ...kb.env, AGENT_APPROVER_KEY: ada.privateKey };
    for (const profile of ["full", "read-only"])
      expect(
        (await (await connect("gate", ["--profile", profile], env)).listTools()).tools.map((t) => t.name),
      ).not.toContain("gate_approve");
    const gate = await connect("gate", [], env);
    const review = await gate.callTool({ name: "gate_review", arguments: { plan: kb.run } });
    expect([review.isError, errorOf(review).code]).toEqual([true, "APPROVAL_REQUIRED"]);
    const approve = await gate.callTool({ name: "gate_approve", arguments: { plan: kb.run, by: "ada" } });
    expect([approve.isError, errorOf(approve).code]).toEqual([true, "POLICY_DENIED"]);
    expect(planIn(kb.run).approval).toBeNull();
    const brain = await connect("brain", [], kb.env);
    const apply = await brain.callTool({ name: "brain_apply", arguments: { plan: kb.run } });
    expect([apply.isError, errorOf(apply).code]).toEqual([true, "APPROVAL_REQUIRED"]);
    expect(commits(kb)).toBe(1);
  });

  test("the declared-tools manifest declares no approve", () => {
    const tools = Object.keys(JSON.parse(readFileSync(join(dist, "tools.json"), "utf8")).tools);
    expect(tools).toContain("gate_review");
    expect(tools.filter((t) => t.includes("approve"))).toEqual([]);
  });

  test("a job step that runs gate approve is refused (POLICY_DENIED, exit 5), with a named person's key in the harness's environment", async () => {
    const kb = knowledgeBase();
    const ada = gateKeys();
    personPolicy(kb, [{ name: "Ada Lovelace", public_key: ada.publicKey }]);
    await plannedNote(kb);
    const jobFile = join(kb.dir, "job.json");
    writeFileSync(
      jobFile,
      JSON.stringify({
        id: "self-approve",
        steps: [
          { argv: ["gate", "approve", "--plan", kb.run, "--by", "ada"] },
          { argv: ["brain", "apply", "--plan", kb.run] },
        ],
      }),
    );
    const r = await run(binary("harness"), ["job", "execute", "--job", jobFile, "--json"], {
      env: { ...kb.env, AGENT_APPROVER_KEY: ada.privateKey },
      timeoutMs: 60_000,
    });
    const step = r.json.data.steps[0];
    expect([r.json.data.steps.length, step.ok, step.exit, r.json.data.errors[0]?.error.code]).toEqual([
      1,
      false,
      5,
      "POLICY_DENIED",
    ]);
    expect(planIn(kb.run).approval).toBeNull();
    expect(commits(kb)).toBe(1);
  });

  test("gate approve signs with the person's key and records the name the policy gives it; apply commits", async () => {
    const kb = knowledgeBase();
    const ada = gateKeys();
    personPolicy(kb, [
      { name: "Ada Lovelace", public_key: ada.publicKey },
      { name: "Grace Hopper", public_key: gateKeys().publicKey },
    ]);
    await plannedNote(kb);
    const approved = await run(binary("gate"), ["approve", "--plan", kb.run, "--json"], {
      env: { ...kb.env, AGENT_APPROVER_KEY: ada.privateKey },
    });
    expect([approved.code, approved.json.data?.mode, approved.json.data?.approved_by]).toEqual([
      0,
      "human",
      "Ada Lovelace",
    ]);
    expect(planIn(kb.run).approval).toMatchObject({ mode: "human", approved_by: "Ada Lovelace" });
    const applied = await kb.brain(["apply", "--plan", kb.run]);
    expect([applied.code, applied.json.data?.executed]).toEqual([0, 1]);
    expect(commits(kb)).toBe(2);
  });

  test("a key the policy does not name approves nothing: gate approve refuses it, and apply refuses an approval it signed under any name", async () => {
    const kb = knowledgeBase();
    const ada = gateKeys();
    const stranger = gateKeys();
    personPolicy(kb, [{ name: "Ada Lovelace", public_key: ada.publicKey }]);
    await plannedNote(kb);
    const refused = await run(binary("gate"), ["approve", "--plan", kb.run, "--json"], {
      env: { ...kb.env, AGENT_APPROVER_KEY: stranger.privateKey },
    });
    expect([refused.code, refused.json.error.code, refused.json.error.allowed]).toEqual([
      5,
      "POLICY_DENIED",
      ["Ada Lovelace"],
    ]);
    expect(planIn(kb.run).approval).toBeNull();
    // An agent writing the approval into plan.json itself, signed with a key it holds.
    const forge = (name: string) => {
      const plan = planIn(kb.run);
      const roots = { repo: realpathSync(plan.context.repo) };
      const signature = sign(
        null,
        approvalMessage({ checksum: plan.checksum, policyVersion: "v1", expiry: plan.expiry, roots, approver: name }),
        stranger.privateKey,
      ).toString("base64");
      const approval = {
        checksum: plan.checksum,
        policy_version: "v1",
        expiry: plan.expiry,
        roots,
        mode: "human",
        approved_by: name,
        approved_at: plan.created_at,
        signature,
      };
      writeFileSync(
        join(kb.run, "plan.json"),
        JSON.stringify({ ...plan, policy_version: "v1", approval_id: approvalIdOf(signature), approval }),
      );
    };
    const cases: [string, number, string][] = [
      ["Mallory", 5, "POLICY_DENIED"],
      ["Ada Lovelace", 5, "APPROVAL_INVALID"],
    ];
    for (const [name, exit, code] of cases) {
      forge(name);
      const r = await kb.brain(["apply", "--plan", kb.run]);
      expect({ name, exit: r.code, code: r.json.error?.code }).toEqual({ name, exit, code });
    }
    expect(commits(kb)).toBe(1);
  });
});

/** Values that a command line would read as flags, or cannot carry at all. */
const HOSTILE = ["-x", "--describe", "--help", "--repo=/tmp", "--"];
/** Past the 128 KiB a single argv word may hold (E2BIG), within what a note's body may hold. */
const BIG = "--big ".repeat(34_000);
const MEGABYTE = "-".repeat(1 << 20);
const NUL = "before\u0000after";

/** The fixture notes, plus one holding every word of the hostile values: a search that takes them as values finds it. */
function wordyBase(): KnowledgeBase {
  return knowledgeBase({
    fill: (repo) => {
      cpSync(join(root, "test", "fixtures", "brain", "kb"), repo, { recursive: true });
      writeFileSync(
        join(repo, "notes", "flag-words.md"),
        "---\nid: flag-words\ntitle: Flag words\n---\n\nx describe help repo tmp\n",
      );
    },
  });
}

/** One door: runs a command of brain with `input` as a caller would give it there; the envelope's ok, data and error. */
type Door = (
  kb: KnowledgeBase,
  command: "search" | "note create",
  input: Record<string, unknown>,
) => Promise<{ ok: boolean; data: any; error: any; exit?: number }>;

const viaMcp: Door = async (kb, command, input) => {
  const client = await connect("brain", [], kb.env);
  const r = await client.callTool({
    name: command === "search" ? "brain_search" : "brain_create_note",
    arguments: input,
  });
  return r.isError
    ? { ok: false, data: null, error: errorOf(r) }
    : { ok: true, data: JSON.parse((r.content as { text: string }[])[0]!.text), error: null };
};

const viaManifest: Door = async (kb, command, input) => {
  const declared = JSON.parse(readFileSync(join(dist, "tools.json"), "utf8")).tools[
    command === "search" ? "brain_search" : "brain_create_note"
  ];
  const [tool, ...args] = declared.command as string[];
  const r = await run(join(dist, tool!), args, { env: kb.env, stdin: JSON.stringify(input), timeoutMs: 60_000 });
  return { ...r.json, exit: r.code };
};

const viaHarness: Door = async (kb, command, input) => {
  const jobFile = join(mkdtempSync(join(kb.dir, "job-")), "job.json");
  writeFileSync(jobFile, JSON.stringify({ id: "values", steps: [{ argv: ["brain", ...command.split(" ")], input }] }));
  const r = await run(binary("harness"), ["job", "execute", "--job", jobFile, "--json"], {
    env: kb.env,
    timeoutMs: 60_000,
  });
  const step = r.json.data.steps[0];
  return { ok: step.ok, data: step.data, error: r.json.data.errors[0]?.error ?? null, exit: step.exit };
};

const DOORS: Record<string, Door> = {
  "MCP (full profile)": viaMcp,
  "the declared-tools command line": viaManifest,
  "a job step of the harness": viaHarness,
};

describe("a caller's value is never a flag", () => {
  for (const [door, call] of Object.entries(DOORS))
    test(`through ${door}: -x, --describe, --help, --repo=/tmp, --, 200 KiB and 1 MB are values; a NUL byte is a usage error`, async () => {
      const kb = wordyBase();
      for (const value of HOSTILE) {
        const found = await call(kb, "search", { repo: kb.repo, query: value });
        expect({ value, ok: found.ok, ids: found.data?.items?.map((i: any) => i.id) }).toEqual({
          value,
          ok: true,
          ids: value === "--" ? [] : ["flag-words"],
        });
      }
      for (const [i, body] of [...HOSTILE, BIG].entries()) {
        const runDir = join(kb.dir, `run-${i}`);
        const planned = await call(kb, "note create", {
          repo: kb.repo,
          id: `door-${i}`,
          title: body.slice(0, 40),
          body,
          "run-dir": runDir,
        });
        expect({ body: body.slice(0, 20), ok: planned.ok }).toEqual({ body: body.slice(0, 20), ok: true });
        const params = planIn(runDir).items[0].params;
        expect(params.body === body && params.title === body.slice(0, 40)).toBe(true);
      }
      const big = await call(kb, "note create", {
        repo: kb.repo,
        id: "door-mb",
        title: "A megabyte",
        body: MEGABYTE,
        "run-dir": join(kb.dir, "run-mb"),
      });
      expect([big.ok, big.error?.code, big.error?.message]).toEqual([
        false,
        "INVALID_VALUE",
        expect.stringContaining("--body must have at most"),
      ]);
      for (const input of [
        { repo: kb.repo, query: NUL },
        { repo: kb.repo, title: "NUL", body: NUL, "run-dir": join(kb.dir, "run-nul") },
      ]) {
        const r = await call(kb, "query" in input ? "search" : "note create", input);
        expect([r.ok, r.error?.code, r.error?.message]).toEqual([
          false,
          "INVALID_VALUE",
          expect.stringContaining("NUL"),
        ]);
        if (r.exit !== undefined) expect(r.exit).toBe(2);
      }
    }, 120_000);

  test("through the memory profile: a query is a value, whatever it starts with; too long or with a NUL byte, a usage error", async () => {
    const kb = wordyBase();
    const client = await connect("brain", ["--profile", "memory"], kb.env);
    for (const query of HOSTILE) {
      const r = await client.callTool({ name: "mem_search", arguments: { query } });
      expect({ query, isError: r.isError ?? false, text: text(r) }).toEqual({
        query,
        isError: false,
        text: query === "--" ? `_No note matches "--"._` : expect.stringContaining("(`flag-words`"),
      });
      const ctx = await client.callTool({ name: "mem_context", arguments: { query } });
      expect({ query, isError: ctx.isError ?? false }).toEqual({ query, isError: false });
      const resource = await client.readResource({ uri: `mem://search?q=${encodeURIComponent(query)}` });
      expect((resource.contents[0] as { text: string }).text).toBe(text(r));
    }
    for (const [query, says] of [
      [BIG, "at most 500 characters"],
      [MEGABYTE, "at most 500 characters"],
      [NUL, "NUL"],
    ] as const) {
      const r = await client.callTool({ name: "mem_search", arguments: { query } });
      expect([r.isError, errorOf(r).code, errorOf(r).message]).toEqual([
        true,
        "INVALID_VALUE",
        expect.stringContaining(says),
      ]);
    }
  }, 120_000);
});
