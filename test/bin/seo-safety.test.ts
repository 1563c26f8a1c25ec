/** dist/seo and what it must never do: leak a secret, hang, prompt off a terminal, or die without an envelope. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ANSI, baseEnv, binary, parseOneJson, root, run } from "../helpers/bin.ts";
import { page, serveSite, type SiteServer } from "../helpers/site-server.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const seo = binary("seo");
const fresh = () => mkdtempSync(join(tmpdir(), "seo-safety-"));
const CANARY = `canary-${crypto.randomUUID()}`;
const SHAPED = "sk-or-v1-4f3c2b1a09f8e7d6c5b4a3921";

describe("redaction of a canary secret", () => {
  let site: SiteServer;
  beforeAll(() => {
    site = serveSite({
      "/": {
        body: page({
          title: `Leaky ${CANARY}`,
          head: `<meta name="description" content="key ${SHAPED} here">`,
          body: `<h1>${CANARY}</h1><a href="/next?token=${CANARY}">next</a>`,
        }),
      },
      [`/next?token=${CANARY}`]: { body: page({ title: "next page" }) },
    });
  }, SLOW_HOOK);
  afterAll(() => site.stop(), SLOW_HOOK);

  test("never appears on stdout, stderr or in the run dir; a credential-shaped string is masked", async () => {
    const dir = fresh();
    const env = { SEO_CANARY_TOKEN: CANARY };
    const outputs: string[] = [];
    for (const argv of [
      ["crawl", "--url", `${site.url}/`],
      ["extract"],
      ["audit", "--limit", "1000"],
      ["page", "list"],
      ["page", "get", "--url", `${site.url}/`],
    ]) {
      const r = await run(seo, [...argv, "--run-dir", dir], { env });
      expect(r.code).toBe(0);
      outputs.push(r.stdout, r.stderr);
    }
    for (const file of readdirSync(dir)) outputs.push(readFileSync(join(dir, file), "utf8"));
    const all = outputs.join("\n");
    expect(all).not.toContain(CANARY);
    expect(all).not.toContain(SHAPED);
    expect(all).toContain("[REDACTED]");
    expect(all).toContain("sk-or-v1_REDACTED");
    // Redaction keeps every document valid JSON.
    const got = parseOneJson(outputs[8]!);
    expect(got.data.page.title).toBe("Leaky [REDACTED]");
  });

  test("HOME is left empty: nothing is written under it", async () => {
    const home = mkdtempSync(join(tmpdir(), "home-"));
    await run(seo, ["crawl", "--url", `${site.url}/`], { env: { HOME: home } });
    await run(seo, ["audit", "--severity", "urgent"], { env: { HOME: home } });
    expect(readdirSync(home)).toEqual([]);
  });
});

describe("signals", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    test(`${signal} mid-request: exit 130, one CANCELLED envelope`, async () => {
      let release!: () => void;
      const hold = new Promise<void>((r) => (release = r));
      const site = serveSite({ "/": { body: page({ title: "slow" }), hold } });
      try {
        const proc = Bun.spawn([seo, "crawl", "--url", `${site.url}/`, "--run-dir", fresh()], {
          env: baseEnv(),
          stdout: "pipe",
          stderr: "pipe",
          timeout: 15000,
        });
        await site.requested("/"); // the crawl is in flight: no timing guesses
        proc.kill(signal);
        const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
        const env = parseOneJson(stdout);
        expect(code).toBe(130);
        expect(env.ok).toBe(false);
        expect(env.error.code).toBe("CANCELLED");
        expect(env.error.message).toBe(`interrupted by ${signal}`);
        expect(env.command).toBe("crawl");
      } finally {
        release();
        site.stop();
      }
    });
});

describe("never a prompt, never a hang", () => {
  test("every command returns promptly with stdin closed and --no-input", async () => {
    const dir = fresh();
    const describe = (await run(seo, ["--describe"])).json;
    for (const c of describe.commands) {
      const r = await run(seo, [...c.name.split(" "), "--no-input", "--run-dir", dir], { timeoutMs: 10000 });
      expect(r.code).not.toBe(137); // killed by the timeout: a hang
      expect(r.json.ok).toBe(r.code === 0);
    }
  });
});

const hasScript = Bun.which("script") !== null;
/** Runs under a pseudo-terminal (util-linux `script`), as a person at a terminal would. */
async function onTerminal(argv: string[], env: Record<string, string> = {}): Promise<string> {
  const cmd = [seo, ...argv].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const proc = Bun.spawn(["script", "-qec", cmd, "/dev/null"], {
    env: baseEnv({ TERM: "xterm-256color", COLUMNS: "120", ...env }),
    stdout: "pipe",
    stdin: "ignore",
    timeout: 15000,
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return out;
}

describe.if(hasScript)("on a terminal", () => {
  const dir = fresh();
  beforeAll(async () => {
    for (const stage of [["crawl", "--dir", join(root, "examples", "site")], ["extract"], ["audit"]])
      await run(seo, [...stage, "--run-dir", dir]);
  }, SLOW_HOOK);

  test("lists are tables for people, not JSON", async () => {
    const out = await onTerminal(["finding", "list", "--run-dir", dir, "--limit", "3"]);
    expect(out).toContain("ID");
    expect(out).toContain("SEVERITY");
    expect(out.trimStart().startsWith("{")).toBe(false);
  });

  test("NO_COLOR turns colour off; --json gives the envelope even on a terminal", async () => {
    expect(ANSI.test(await onTerminal(["finding", "list", "--run-dir", dir, "--limit", "3"], { NO_COLOR: "1" }))).toBe(
      false,
    );
    const json = await onTerminal(["finding", "list", "--run-dir", dir, "--limit", "3", "--json"]);
    expect(JSON.parse(json.trim()).ok).toBe(true);
  });

  test("an error on a terminal goes to stderr as a line with its hint", async () => {
    const out = await onTerminal(["audit", "--severity", "urgent"], { NO_COLOR: "1" });
    expect(out).toContain("error INVALID_ENUM: --severity must be one of: low, medium, high (got: 'urgent')");
  });
});
