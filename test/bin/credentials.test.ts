/**
 * contract §10's failure edges, on a compiled example tool built on the kit
 * (test/fixtures/registry) against a real token service on 127.0.0.1
 * (test/helpers/token-server.ts): a token that dies mid-command is refreshed
 * once; a second 401 is AUTH_FAILED; a dead credential at start fails before
 * any side effect, is marked re-dispatch by the harness, and the re-dispatched
 * apply executes nothing twice; a register-once secret is on stdout once and
 * nowhere else, and reaches the platform's secret sink through the harness.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../../scripts/compile.ts";
import { checkSignature } from "../../src/features/harness/sign.ts";
import {
  createReceiver,
  deliver,
  foldJob,
  openEventStore,
  SchemaRegistry,
  type StepRun,
} from "../../src/features/harness/index.ts";
import { compileTool } from "../../src/kit/compile/index.ts";
import harnessTool from "../../tools/harness/tool.ts";
import { registry as registryTool } from "../fixtures/registry/main.ts";
import { approvalIdOf } from "../../src/kit/mutations/admit.ts";
import { signApproval } from "../../src/kit/mutations/approval.ts";
import { readPlanFile, writePlanFile } from "../../src/kit/mutations/plan.ts";
import { binary, root, run, type RunResult } from "../helpers/bin.ts";
import { gateKeys, LEDGER_ENGINES } from "../helpers/mutation.ts";
import { tokenServer, type TokenServer } from "../helpers/token-server.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

let registry: string;
let server: TokenServer;
beforeAll(async () => {
  registry = join(mkdtempSync(join(tmpdir(), "registry-bin-")), "registry");
  await compile(join(root, "test", "fixtures", "registry", "main.ts"), registry);
  server = tokenServer();
}, SLOW_HOOK);
afterAll(() => server.stop(), SLOW_HOOK);

const now = (): number => Math.floor(Date.now() / 1000);

/** The environment the platform injects: the service, a token with its expiry and (unless told not to) its refresh token. */
function injected(
  name: "REGISTRY_READ_TOKEN" | "REGISTRY_WRITE_TOKEN",
  o: { expiresIn?: number; refresh?: boolean } = {},
): Record<string, string> {
  const t = server.issue(name);
  return {
    REGISTRY_API_URL: server.url,
    AGENT_CREDENTIAL_REFRESH_URL: server.refreshUrl,
    [name]: t.token,
    [`${name}_EXPIRES_AT`]: String(now() + (o.expiresIn ?? 7200)),
    ...(o.refresh === false ? {} : { [`${name}_REFRESH_TOKEN`]: t.refresh_token }),
  };
}

const counts = () => ({ ...server.counts });
const since = (before: { refreshes: number; refused: number; requests: number }) => {
  const c = server.counts;
  return {
    refreshes: c.refreshes - before.refreshes,
    refused: c.refused - before.refused,
    requests: c.requests - before.requests,
  };
};

describe("refresh (contract §10: a job that outlives its token)", () => {
  test("a token that dies mid-export is refreshed once, and the export completes", async () => {
    server.set({ tokenUses: 2, pages: 3, refuseAll: false });
    const before = counts();
    const r = await run(registry, ["export", "--json"], { env: injected("REGISTRY_READ_TOKEN") });
    server.set({ tokenUses: undefined });
    expect([r.code, r.json.data]).toEqual([0, { records: ["record-0", "record-1", "record-2"], pages: 3 }]);
    // pages 0 and 1, page 2 refused, the refresh, page 2 again, the empty page 3
    expect(since(before)).toEqual({ refreshes: 1, refused: 1, requests: 5 });
    for (const token of server.issued) expect(r.stdout + r.stderr).not.toContain(token);
  });

  test("a token expiring within the margin at start is refreshed before the first request, never refused", async () => {
    server.set({ pages: 1 });
    const before = counts();
    const r = await run(registry, ["export", "--json"], { env: injected("REGISTRY_READ_TOKEN", { expiresIn: 5 }) });
    expect([r.code, since(before)]).toEqual([0, { refreshes: 1, refused: 0, requests: 2 }]);
  });

  test("a 401 from the credential-bound service triggers one refresh; a second 401 is AUTH_FAILED, exit 4, with a hint", async () => {
    server.set({ refuseAll: true });
    const before = counts();
    const r = await run(registry, ["export", "--json"], { env: injected("REGISTRY_READ_TOKEN") });
    server.set({ refuseAll: false });
    expect([r.code, r.json.error.code, r.json.error.retryable]).toEqual([4, "AUTH_FAILED", false]);
    expect(r.json.error.hint).toContain("re-dispatch with fresh credentials");
    expect(since(before)).toEqual({ refreshes: 1, refused: 2, requests: 2 });
    for (const token of server.issued) expect(r.stdout + r.stderr).not.toContain(token);
  });
});

/** A fresh workspace: keys, a policy, a plan of three records and a client, signed as the gate signs. */
function planned(ledgerUrl: string | undefined): {
  dir: string;
  env: Record<string, string>;
  apply(extra: Record<string, string>): Promise<RunResult>;
} {
  const dir = mkdtempSync(join(tmpdir(), "registry-"));
  const keys = gateKeys();
  const policyPath = join(dir, "policy.json");
  Bun.write(policyPath, JSON.stringify({ version: "p1", max_items: 100, actions: {} }));
  const env = {
    AGENT_GATE_PUBLIC_KEY: keys.publicKey,
    AGENT_POLICY_FILE: policyPath,
    ...(ledgerUrl ? { AGENT_LEDGER_URL: ledgerUrl } : {}),
  };
  return {
    dir,
    env: { ...env, PRIVATE: keys.privateKey },
    apply: (extra) => run(registry, ["apply", "--plan", dir, "--json"], { env: { ...env, ...extra } }),
  };
}

async function planAndApprove(ws: ReturnType<typeof planned>, suffix: string): Promise<void> {
  const p = await run(
    registry,
    [
      "plan",
      "--records",
      `a${suffix},b${suffix},c${suffix}`,
      "--client",
      `web${suffix}`,
      "--run-dir",
      ws.dir,
      "--json",
    ],
    { env: {} },
  );
  if (p.code !== 0) throw new Error(p.stdout);
  // Apply's side is under test, not the gate's: the test signs as the gate does, with the gate's key.
  const path = join(ws.dir, "plan.json");
  const plan = readPlanFile(path, "registry");
  const signature = signApproval(ws.env.PRIVATE!, "AGENT_GATE_PRIVATE_KEY", {
    checksum: plan.checksum,
    policyVersion: "p1",
    expiry: plan.expiry,
    roots: {},
  });
  writePlanFile(path, {
    ...plan,
    policy_version: "p1",
    approval_id: approvalIdOf(signature),
    approval: {
      checksum: plan.checksum,
      policy_version: "p1",
      expiry: plan.expiry,
      roots: {},
      mode: "policy",
      approved_by: "policy p1",
      approved_at: new Date().toISOString(),
      signature,
    },
  });
}

const stepOf = (r: RunResult, index = 0): StepRun => ({
  index,
  argv: ["registry", "apply"],
  exit: r.code,
  envelope: JSON.parse(r.stdout),
  durationMs: 1,
});

describe("a dead credential at start (contract §10: a missed bootstrap window)", () => {
  test("already expired, no refresh path: CREDENTIAL_EXPIRED, exit 4, before any side effect (no request, no ledger)", async () => {
    const ws = planned(undefined);
    await planAndApprove(ws, "-x1");
    const before = counts();
    const r = await ws.apply(injected("REGISTRY_WRITE_TOKEN", { expiresIn: -60, refresh: false }));
    expect([r.code, r.json.error.code, r.json.error.retryable]).toEqual([4, "CREDENTIAL_EXPIRED", false]);
    expect(r.json.error.hint).toContain("re-dispatch");
    expect([since(before).requests, existsSync(join(ws.dir, "ledger.sqlite"))]).toEqual([0, false]);
  });

  test("expiring before the command's maximum duration, or with a spent refresh token: CREDENTIAL_EXPIRED before any request", async () => {
    const ws = planned(undefined);
    await planAndApprove(ws, "-x2");
    const before = counts();
    const soon = await ws.apply(injected("REGISTRY_WRITE_TOKEN", { expiresIn: 600, refresh: false }));
    const spent = injected("REGISTRY_WRITE_TOKEN", { expiresIn: -1 });
    await fetch(server.refreshUrl, {
      method: "POST",
      body: JSON.stringify({
        credential: "REGISTRY_WRITE_TOKEN",
        refresh_token: spent.REGISTRY_WRITE_TOKEN_REFRESH_TOKEN,
      }),
    });
    const refused = await ws.apply(spent);
    expect([soon.code, soon.json.error.code, soon.json.error.detail.credential]).toEqual([
      4,
      "CREDENTIAL_EXPIRED",
      "REGISTRY_WRITE_TOKEN",
    ]);
    expect([refused.code, refused.json.error.code]).toEqual([4, "CREDENTIAL_EXPIRED"]);
    expect(since(before).requests).toBe(0);
    expect(["a-x2", "b-x2", "c-x2"].map((n) => server.creates.get(n) ?? 0)).toEqual([0, 0, 0]);
  });

  test("the harness report marks a dead credential re-dispatch, a passing failure retry, and a usage error neither", async () => {
    const ws = planned(undefined);
    await planAndApprove(ws, "-x3");
    const dead = await ws.apply(injected("REGISTRY_WRITE_TOKEN", { expiresIn: -60, refresh: false }));
    const passing = await run(registry, ["export", "--json"], {
      env: { ...injected("REGISTRY_READ_TOKEN"), REGISTRY_API_URL: "http://127.0.0.1:9/" },
    });
    const usage = await run(registry, ["export", "--pages", "2", "--json"], { env: injected("REGISTRY_READ_TOKEN") });
    const report = foldJob({
      jobId: "j",
      eventId: "e",
      runs: [stepOf(dead, 0), stepOf(passing, 1), stepOf(usage, 2)],
      notRun: 0,
      cancelled: false,
      artifacts: [],
    });
    expect(
      report.steps.map((s) => [
        s.ok,
        (report.errors.find((e) => e.step === s.step)?.error as { code: string } | undefined)?.code,
        s.remedy,
      ]),
    ).toEqual([
      [false, "CREDENTIAL_EXPIRED", "re-dispatch"],
      [false, "NETWORK_ERROR", "retry"],
      [false, "UNKNOWN_FLAG", null],
    ]);
  });
});

describe("re-dispatch (contract §10 and §8: fresh credentials must not re-cause the effect)", () => {
  for (const [engine, url] of Object.entries(LEDGER_ENGINES))
    test(`${engine}: a token that dies part-way with no refresh path stops the apply; the re-dispatched apply executes each item once, in 5 rounds`, async () => {
      for (let round = 0; round < 5; round++) {
        const ws = planned(url());
        const s = `-${engine}-${round}-${crypto.randomUUID().slice(0, 8)}`; // the PostgreSQL ledger outlives a test run
        await planAndApprove(ws, s);
        server.set({ tokenUses: 2 });
        const first = await ws.apply(injected("REGISTRY_WRITE_TOKEN", { refresh: false }));
        server.set({ tokenUses: undefined });
        expect([first.code, first.json.error.code]).toEqual([4, "AUTH_FAILED"]);
        expect(first.json.error.detail.items.map((i: any) => i.outcome)).toEqual([
          "applied",
          "applied",
          "failed",
          "skipped",
        ]);
        const again = await ws.apply(injected("REGISTRY_WRITE_TOKEN"));
        expect([again.code, again.json.data?.executed]).toEqual([0, 2]);
        const third = await ws.apply(injected("REGISTRY_WRITE_TOKEN"));
        expect([third.code, third.json.data.executed, third.json.meta.secrets_out]).toEqual([0, 0, undefined]);
        expect([`a${s}`, `b${s}`, `c${s}`].map((n) => server.creates.get(n))).toEqual([1, 1, 1]);
        expect(server.clients.get(`web${s}`)?.registrations).toBe(1);
      }
    }, 120_000);
});

/** Every file under `dir`, as text. */
const filesUnder = (dir: string): { path: string; text: string }[] =>
  readdirSync(dir, { recursive: true, withFileTypes: false })
    .map((p) => join(dir, String(p)))
    .filter((p) => statSync(p).isFile())
    .map((path) => ({ path, text: readFileSync(path, "latin1") }));

describe("register-once secrets (contract §10: the tool emits it, the platform stores it)", () => {
  test("the client's secret is on stdout exactly once and nowhere else, and reaches the platform's sink through the harness", async () => {
    const { deliverSecrets, issuedSecrets } = await import("../../src/features/harness/secrets.ts");
    const ws = planned(undefined);
    await planAndApprove(ws, "-s");
    const r = await ws.apply(injected("REGISTRY_WRITE_TOKEN"));
    const secret = server.clients.get("web-s")!.secret;
    expect(r.code).toBe(0);
    expect(r.json.meta.secrets_out).toEqual({ REGISTRY_CLIENT_SECRET: secret });
    expect(r.stdout.split(secret).length - 1).toBe(1);
    expect(r.stderr).not.toContain(secret);
    expect(JSON.stringify(r.json.data)).not.toContain(secret);

    // The action log, and the history page the harness renders from it.
    const log = await run(registry, ["action", "list", "--plan", ws.dir, "--json"], { env: ws.env });
    expect([log.code, log.stdout.includes(secret)]).toEqual([0, false]);
    const history = await run(
      binary("harness"),
      ["history", "render", "--plan", ws.dir, "--run-dir", ws.dir, "--json"],
      { env: ws.env },
    );
    expect(history.code).toBe(0);

    // The harness: the folded report holds no secret; the sink gets it, signed; the receiver's store never sees it.
    const hmac = "harness-secret-0123456789";
    const runs = [stepOf(r)];
    const report = foldJob({ jobId: "job-s", eventId: "evt-s", runs, notRun: 0, cancelled: false, artifacts: [] });
    expect(JSON.stringify(report)).not.toContain(secret);
    const sunk: any[] = [];
    const sink = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const body = new Uint8Array(await req.arrayBuffer());
        if (checkSignature(hmac, req.headers, body, Date.now())) return new Response("bad signature", { status: 401 });
        sunk.push(JSON.parse(new TextDecoder().decode(body)));
        return Response.json({ stored: true });
      },
    });
    // The receiving side, as the harness's library runs it, with this tool's schemas and the report's own registered.
    const store = await openEventStore(undefined, join(ws.dir, "receiver.sqlite"));
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: createReceiver({
        secret: hmac,
        store,
        registry: SchemaRegistry.of([compileTool(registryTool).describe, compileTool(harnessTool).describe]),
        now: Date.now,
      }),
    });
    const opts = { secret: hmac, now: Date.now, signal: new AbortController().signal, redact: (t: string) => t };
    try {
      const sent = await deliverSecrets(`http://127.0.0.1:${sink.port}/secrets`, "job-s", issuedSecrets(runs), {
        ...opts,
        eventId: "evt-s.secrets",
      });
      const got = await deliver(`http://127.0.0.1:${receiver.port}/reports`, JSON.stringify(report), {
        ...opts,
        eventId: "evt-s",
      });
      expect([sent?.names, got.status]).toEqual([["REGISTRY_CLIENT_SECRET"], 200]);
    } finally {
      sink.stop(true);
      receiver.stop(true);
      await store.close();
    }
    expect(sunk.map((b) => b.secrets.map((x: any) => [x.name, x.value]))).toEqual([
      [["REGISTRY_CLIENT_SECRET", secret]],
    ]);

    // The canary sweep: the run dir (plan, ledger and its WAL, history and timeline pages), the receiver's store.
    const files = filesUnder(ws.dir);
    expect(files.map((f) => f.path.slice(ws.dir.length + 1)).sort()).toEqual(
      expect.arrayContaining(["plan.json", "ledger.sqlite", "history.html", "receiver.sqlite"]),
    );
    expect(files.filter((f) => f.text.includes(secret)).map((f) => f.path)).toEqual([]);
  });

  test("a secret issued with no sink is an error naming it, and is written nowhere", async () => {
    const { deliverSecrets, issuedSecrets } = await import("../../src/features/harness/secrets.ts");
    const step = {
      index: 3,
      argv: ["registry", "apply"],
      exit: 0,
      durationMs: 1,
      envelope: {
        ok: true,
        tool: "registry",
        command: "apply",
        data: {},
        error: null,
        meta: {
          schema: "registry.apply@1",
          cost_usd: 0,
          llm_tokens: 0,
          outcome: null,
          secrets_out: { REGISTRY_CLIENT_SECRET: "sk-reg-0123456789abcdef" },
        },
      },
    } satisfies StepRun;
    const e = await deliverSecrets(undefined, "j", issuedSecrets([step]), {
      secret: "x",
      eventId: "e",
      now: Date.now,
      signal: new AbortController().signal,
      redact: (t) => t,
    }).catch((x) => x);
    expect([e.code, e.message.includes("sk-reg-"), JSON.stringify(e.detail).includes("sk-reg-")]).toEqual([
      "INVALID_INPUT",
      false,
      false,
    ]);
  });
});
