/** seo synthesize against a real chat-completions server on 127.0.0.1, run in-process through the kit's seam. */
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import seoTool from "../../tools/seo/tool.ts";
import { root } from "../helpers/bin.ts";
import { runInProcess } from "../helpers/in-process.ts";
import { chatServer, type ChatServer } from "../helpers/chat-server.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const REPORT = JSON.stringify({
  summary: "Fix the broken link and the missing page metadata first.",
  actions: [
    {
      priority: 2,
      title: "Add meta descriptions",
      why: "Pages without one show random snippets.",
      rules: ["meta-description"],
      pages: ["https://harbour.example/about.html"],
    },
    {
      priority: 1,
      title: "Fix the broken link",
      why: "Visitors and crawlers hit a 404.",
      rules: ["broken-link"],
      pages: ["https://harbour.example/"],
    },
  ],
});
const USAGE = { prompt_tokens: 1234, completion_tokens: 567, total_tokens: 1801 };

let audited: string;
let server: ChatServer | null = null;
afterEach(() => server?.stop(), SLOW_HOOK);

beforeAll(async () => {
  audited = mkdtempSync(join(tmpdir(), "synth-"));
  for (const stage of [
    ["crawl", "--dir", join(root, "examples", "site"), "--base-url", "https://harbour.example"],
    ["extract"],
    ["audit"],
    ["score"],
  ]) {
    const r = await runInProcess(seoTool, [...stage, "--run-dir", audited, "--json"]);
    expect(r.code).toBe(0);
  }
}, SLOW_HOOK);

function runDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "synth-run-"));
  cpSync(audited, dir, { recursive: true });
  return dir;
}

const synthesize = (
  dir: string,
  extra: string[] = [],
  env: Record<string, string> = { OPENROUTER_API_KEY: "sk-or-v1-test-0123456789abcdef0123456789abcdef" },
) =>
  runInProcess(seoTool, ["synthesize", "--run-dir", dir, "--model", "openai/gpt-4o-mini", "--json", ...extra], {
    env: { AGENT_LLM_BASE_URL: server!.url, ...env },
  });

describe("seo synthesize", () => {
  test("fills meta.llm_tokens and meta.cost_usd with what the server reported, and records model, prompt and input", async () => {
    server = chatServer([{ content: REPORT, usage: USAGE }]);
    const dir = runDir();
    const r = await synthesize(dir);
    expect(r.code).toBe(0);
    expect(r.json.meta.llm_tokens).toBe(1801);
    // openai/gpt-4o-mini: $0.15 per million in, $0.60 per million out
    expect(r.json.meta.cost_usd).toBeCloseTo((1234 * 0.15 + 567 * 0.6) / 1e6, 10);
    expect(r.json.data.actions.map((a: any) => a.title)).toEqual(["Fix the broken link", "Add meta descriptions"]);
    const artifact = JSON.parse(readFileSync(join(dir, "synthesize.json"), "utf8"));
    expect(artifact.model).toBe("openai/gpt-4o-mini");
    expect(artifact.prompt_version).toBe("synthesize-v1");
    expect(artifact.inputs.map((i: any) => i.artifact)).toEqual(["audit", "score"]);
    expect(artifact.data.usage).toEqual(USAGE);
    // The key went to the server, and nowhere else.
    expect(server.requests[0]!.authorization).toBe("Bearer sk-or-v1-test-0123456789abcdef0123456789abcdef");
    expect(r.stdout + r.stderr + readFileSync(join(dir, "synthesize.json"), "utf8")).not.toContain(
      "0123456789abcdef0123456789abcdef",
    );
    expect(server.requests[0]!.body.model).toBe("openai/gpt-4o-mini");
  });

  test("a 500 is retried with backoff, and the answer after it counts once", async () => {
    server = chatServer([{ status: 500 }, { content: REPORT, usage: USAGE }]);
    const r = await synthesize(runDir());
    expect(r.code).toBe(0);
    expect(server.requests.length).toBe(2);
    expect(r.json.meta.llm_tokens).toBe(1801);
    expect(r.stderr).toContain("retrying");
  });

  test("a 429 that persists is reported as retryable after bounded retries: RATE_LIMITED, exit 4", async () => {
    server = chatServer([{ status: 429, headers: { "retry-after": "0" } }]);
    const dir = runDir();
    const r = await synthesize(dir);
    expect(r.code).toBe(4);
    expect(r.json.error.code).toBe("RATE_LIMITED");
    expect(r.json.error.retryable).toBe(true);
    expect(server.requests.length).toBe(3);
    expect(() => readFileSync(join(dir, "synthesize.json"))).toThrow();
  }, 120_000);

  test("a slow answer is cut off by --timeout: UPSTREAM_TIMEOUT, exit 4", async () => {
    server = chatServer([{ content: REPORT, usage: USAGE, delayMs: 3000 }]);
    const started = performance.now();
    const r = await synthesize(runDir(), ["--timeout", "300"]);
    expect(r.code).toBe(4);
    expect(r.json.error.code).toBe("UPSTREAM_TIMEOUT");
    expect(performance.now() - started).toBeLessThan(2900);
  });

  test("no key: a precondition error naming the variable, exit 3, and no request made", async () => {
    server = chatServer([{ content: REPORT, usage: USAGE }]);
    const r = await synthesize(runDir(), [], {});
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe("MISSING_ENV");
    expect(r.json.error.hint).toContain("OPENROUTER_API_KEY");
    expect(server.requests.length).toBe(0);
  });

  test("a refused key: CREDENTIAL_REJECTED, exit 3, hint naming the variable", async () => {
    server = chatServer([{ status: 401 }]);
    const r = await synthesize(runDir());
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe("CREDENTIAL_REJECTED");
    expect(r.json.error.hint).toContain("OPENROUTER_API_KEY");
  });
});
