/**
 * contract §10's register-once secret, end to end through the compiled
 * harness: a step's envelope carries `meta.secrets_out`; `job execute` posts
 * it, signed, to the job's secret sink and nowhere else — not its answer, not
 * report.json, not the delivered report. Without a sink the job says so,
 * naming the secret, and still delivers its report. (The fake step's data is
 * no real seo result, so the platform side here is a plain 127.0.0.1 server
 * that keeps what it is sent; the receiver's own checks have their tests.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkSignature } from "../../src/features/harness/sign.ts";
import { baseEnv } from "../helpers/bin.ts";
import { misbehavingFleet } from "../helpers/harness.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const HMAC = "sink-secret-0123456789abcdef";
const ISSUED = "sk-live-CANARYSINK0123456789abcdef";

/** A seo step that registered a client and was handed its secret, once. */
const envelope = {
  ok: true,
  contract_version: 0,
  tool: "seo",
  command: "crawl",
  data: { registered: true },
  error: null,
  meta: {
    schema: "seo.crawl@1",
    duration_ms: 1,
    cost_usd: 0,
    llm_tokens: 0,
    pagination: null,
    truncated: false,
    truncation_hint: null,
    run_dir: null,
    outcome: null,
    next: [],
    secrets_out: { SEO_CLIENT_SECRET: ISSUED },
  },
};

describe("a register-once secret through harness job execute", () => {
  let dir: string;
  let bin: string;
  /** What the platform was sent, by path: the secret sink's posts and the reports. */
  const sent: { path: string; signed: boolean; body: any; text: string }[] = [];
  let platform: ReturnType<typeof Bun.serve>;
  const sunk = () => sent.filter((s) => s.path === "/secrets");
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "harness-sink-"));
    bin = misbehavingFleet(dir, "sink");
    writeFileSync(join(dir, "issued.json"), JSON.stringify(envelope));
    platform = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const body = new Uint8Array(await req.arrayBuffer());
        const text = new TextDecoder().decode(body);
        sent.push({
          path: new URL(req.url).pathname,
          signed: checkSignature(HMAC, req.headers, body, Date.now()) === null,
          body: JSON.parse(text),
          text,
        });
        return Response.json({ stored: true });
      },
    });
  }, SLOW_HOOK);
  afterAll(() => platform?.stop(true), SLOW_HOOK);
  const at = (path: string) => `http://127.0.0.1:${platform.port}${path}`;

  const execute = async (id: string, delivery: Record<string, string>) => {
    writeFileSync(
      join(dir, `${id}.json`),
      JSON.stringify({ id, run_dir: `run-${id}`, steps: [{ argv: ["seo", "print", "issued.json"] }], delivery }),
    );
    await using p = Bun.spawn([bin, "job", "execute", "--job", join(dir, `${id}.json`), "--json"], {
      cwd: dir,
      env: baseEnv({ AGENT_HARNESS_SECRET: HMAC }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
      p.exited,
    ]);
    return { code, out, err, json: JSON.parse(out) };
  };
  const filesHolding = (text: string): string[] =>
    (readdirSync(dir, { recursive: true }) as string[]).filter((f) => {
      try {
        return readFileSync(join(dir, f), "latin1").includes(text);
      } catch {
        return false;
      }
    });

  test("goes to the sink once, signed, and into no answer, report or store", async () => {
    const r = await execute("with-sink", { url: at("/reports"), secrets_url: at("/secrets") });
    expect([r.code, r.json.ok, r.json.data.secrets_delivered?.names, r.json.data.delivered?.status]).toEqual([
      0,
      true,
      ["SEO_CLIENT_SECRET"],
      200,
    ]);
    expect(sunk().map((s) => [s.signed, s.body.job_id, s.body.secrets.map((x: any) => [x.name, x.value])])).toEqual([
      [true, "with-sink", [["SEO_CLIENT_SECRET", ISSUED]]],
    ]);
    const reports = sent.filter((s) => s.path === "/reports");
    expect(reports.map((s) => [s.signed, s.body.job_id, s.text.includes(ISSUED)])).toEqual([
      [true, "with-sink", false],
    ]);
    expect([r.out.includes(ISSUED), r.err.includes(ISSUED)]).toEqual([false, false]);
    // The fake tool's own input file holds it, as the service's answer would; nothing the harness wrote does.
    expect(filesHolding(ISSUED)).toEqual(["issued.json"]);
  });

  test("with no sink, the job names the secret (never its value) and still delivers its report", async () => {
    const r = await execute("no-sink", { url: at("/reports") });
    expect([
      r.code,
      r.json.error.code,
      r.json.error.message.includes("SEO_CLIENT_SECRET"),
      r.out.includes(ISSUED),
    ]).toEqual([3, "INVALID_INPUT", true, false]);
    expect(sent.filter((s) => s.path === "/reports").map((s) => [s.body.job_id, s.text.includes(ISSUED)])).toEqual([
      ["with-sink", false],
      ["no-sink", false],
    ]);
    expect(sunk()).toHaveLength(1);
    expect(readFileSync(join(dir, "run-no-sink", "report.json"), "utf8")).not.toContain(ISSUED);
    expect(filesHolding(ISSUED)).toEqual(["issued.json"]);
  });
});
