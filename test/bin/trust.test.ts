/**
 * Trust boundaries, tried as an agent with write access to a run dir would:
 * a plan naming a hostile tool, a plan rooted outside the policy's roots, a
 * link swapped into the site after approval, a note that is a link out of
 * the repository, and a secret echoed back in its encodings. Each through
 * the compiled binaries, with proof that nothing outside the scope was read,
 * run or written.
 */
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planChecksum } from "../../src/kit/mutations/plan.ts";
import { binary, root, run } from "../helpers/bin.ts";
import { removeWorkspaces, SEO_ACTIONS, workspace, type Workspace } from "../helpers/mutation.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const sha256File = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** Rewrites plan.json as an agent could, with a checksum that matches again. */
function tamper(runDir: string, change: (plan: any) => void): void {
  const path = join(runDir, "plan.json");
  const plan = JSON.parse(readFileSync(path, "utf8"));
  change(plan);
  const { checksum: _c, policy_version: _p, approval_id: _a, approval: _ap, ...body } = plan;
  plan.checksum = planChecksum(body);
  writeFileSync(path, JSON.stringify(plan));
}

async function planned(ws: Workspace): Promise<void> {
  expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
}

const SECRETS = {
  OPENROUTER_API_KEY: "sk-or-v1-canary-0123456789abcdef",
  GITHUB_TOKEN: "ghp_canary0123456789abcdefABCDEF012345",
  AGENT_LEDGER_URL: "postgres://ledger:hunter2-canary@127.0.0.1:1/ledger",
};

describe("the gate runs only the tools its policy names, found as the policy says", () => {
  test("a plan whose tool is a path to another binary is refused (POLICY_DENIED, exit 5), and that binary never runs", async () => {
    const ws = await workspace({});
    await planned(ws);
    const marker = join(ws.dir, "evil-ran");
    const evil = join(ws.dir, "evil");
    writeFileSync(evil, `#!/bin/sh\nenv > "${marker}"\necho '{"ok":true,"data":{"items":[]},"meta":{}}'\n`);
    chmodSync(evil, 0o755);
    tamper(ws.run, (p) => (p.tool = `../../../../../../..${evil}`));
    for (const verb of [["review"], ["approve"]]) {
      const r = await ws.gate([...verb, "--plan", ws.run], SECRETS);
      expect([verb[0], r.code, r.json.error.code]).toEqual([verb[0], 5, "POLICY_DENIED"]);
      expect(r.json.error.allowed).toEqual(["seo"]);
    }
    expect(existsSync(marker)).toBe(false);
  });

  test("the read-back runs with only what target list declares: no write credential, no ledger URL, no other secret", async () => {
    // A stand-in `seo` the policy names by path and hash, that records the environment it was given.
    const bin = tmp("gate-bin-");
    const names = join(bin, "env-names");
    const actions = SEO_ACTIONS.map((name) => ({ name, may: "anything" }));
    const describeDoc = JSON.stringify({
      commands: [
        {
          env: [
            { name: "AGENT_SITE_READ_TOKEN", scope: "read" },
            { name: "AGENT_SITE_WRITE_TOKEN", scope: "write" },
            { name: "AGENT_LEDGER_URL", scope: "config" },
          ],
          writes: { root: "root", actions },
        },
      ],
    });
    writeFileSync(
      join(bin, "seo"),
      `#!/bin/sh
case " $* " in
  *" --describe "*) echo '${describeDoc}' ;;
  *) env | cut -d= -f1 | sort > "${names}"; echo '{"ok":true,"data":{"items":[]},"meta":{"pagination":{"next_cursor":null}}}' ;;
esac
`,
    );
    chmodSync(join(bin, "seo"), 0o755);
    const ws = await workspace({});
    await planned(ws);
    const policy = JSON.parse(readFileSync(ws.env.AGENT_POLICY_FILE!, "utf8"));
    policy.tools = { seo: { path: join(bin, "seo"), sha256: sha256File(join(bin, "seo")) } };
    writeFileSync(ws.env.AGENT_POLICY_FILE!, JSON.stringify(policy));
    const r = await run(binary("gate"), ["review", "--plan", ws.run, "--json"], {
      env: {
        ...ws.env,
        ...SECRETS,
        AGENT_SITE_READ_TOKEN: "read-scope-token-123",
        AGENT_SITE_WRITE_TOKEN: "write-scope-token-456",
      },
    });
    expect(r.json.error?.code ?? "ok").not.toBe("INTERNAL");
    const seen = readFileSync(names, "utf8").trim().split("\n");
    console.log(`the read-back's environment (names): ${seen.join(" ")}`);
    expect(seen).toContain("AGENT_SITE_READ_TOKEN");
    for (const name of [
      "AGENT_SITE_WRITE_TOKEN",
      "AGENT_LEDGER_URL",
      "AGENT_GATE_PRIVATE_KEY",
      "AGENT_GATE_PUBLIC_KEY",
      "OPENROUTER_API_KEY",
      "GITHUB_TOKEN",
      "AGENT_POLICY_FILE",
    ])
      expect(seen).not.toContain(name);
    expect(
      seen.every((n) =>
        [
          "PATH",
          "HOME",
          "TMPDIR",
          "LANG",
          "LC_ALL",
          "TZ",
          "AGENT_SITE_READ_TOKEN",
          "PWD",
          "SHLVL",
          "_",
          "OLDPWD",
        ].includes(n),
      ),
    ).toBe(true);
  });
});

describe("the gate checks where a plan acts", () => {
  test("a plan rooted outside the policy's roots is refused by review and by approve, naming the root; the folder is untouched", async () => {
    const ws = await workspace({});
    const outside = tmp("outside-site-");
    cpSync(join(root, "examples", "site"), outside, { recursive: true });
    const before = readFileSync(join(outside, "about.html"), "utf8");
    const other = join(ws.dir, "other-run");
    for (const stage of [
      ["crawl", "--dir", outside, "--base-url", "https://harbour.example"],
      ["extract"],
      ["audit"],
      ["plan"],
    ])
      expect((await ws.seo([...stage, "--run-dir", other])).code).toBe(0);
    for (const verb of [["review"], ["approve"]]) {
      const r = await ws.gate([...verb, "--plan", other]);
      expect([verb[0], r.code, r.json.error.code]).toEqual([verb[0], 5, "POLICY_DENIED"]);
      expect(r.json.error.message).toContain(outside);
      expect(r.json.error.message).toContain("policy p1");
    }
    const applied = await ws.seo(["apply", "--plan", other]);
    expect(applied.json.error.code).toBe("APPROVAL_REQUIRED");
    expect(readFileSync(join(outside, "about.html"), "utf8")).toBe(before);
  });

  test("an item whose target climbs out of the site is the plan's fault (PLAN_INVALID, exit 3), not a retryable upstream error", async () => {
    const ws = await workspace({});
    await planned(ws);
    tamper(ws.run, (p) => {
      p.items[0].target_resource_ids = ["../../etc/hostname"];
      p.items[0].preconditions[0].target = "../../etc/hostname";
    });
    for (const verb of [["review"], ["approve"]]) {
      const r = await ws.gate([...verb, "--plan", ws.run]);
      expect([verb[0], r.code, r.json.error.code, r.json.error.retryable]).toEqual([verb[0], 3, "PLAN_INVALID", false]);
    }
  });
});

describe("apply never writes through a link out of its root", () => {
  test("a page swapped for a link to an identical file outside the site after approval: PRECONDITION_FAILED, the outside file untouched", async () => {
    const ws = await workspace({});
    await planned(ws);
    expect((await ws.gate(["review", "--plan", ws.run])).code).toBe(0);
    const outside = join(tmp("outside-"), "about.html");
    copyFileSync(join(ws.site, "about.html"), outside);
    const before = readFileSync(outside, "utf8");
    rmSync(join(ws.site, "about.html"));
    symlinkSync(outside, join(ws.site, "about.html"));
    const r = await ws.seo(["apply", "--plan", ws.run]);
    expect([r.code, r.json.error.code]).toEqual([3, "PRECONDITION_FAILED"]);
    const mine = r.json.error.detail.items.filter((i: any) => i.error && i.outcome !== "skipped");
    expect(mine.length).toBeGreaterThan(0);
    expect(mine[0].error.message).toContain("symbolic link");
    expect(readFileSync(outside, "utf8")).toBe(before);
    const targets = await ws.seo(["target", "list", "--plan", ws.run]);
    expect([targets.code, targets.json.error.code]).toEqual([3, "PRECONDITION_FAILED"]);
  });
});

describe("brain reads only regular files of its repository", () => {
  test("a note that is a link out of the repository is never read: get refuses it, search and list set it apart", async () => {
    const repo = tmp("kb-link-");
    mkdirSync(join(repo, "notes"));
    writeFileSync(join(repo, "notes", "ok.md"), "---\ntitle: ok\n---\n\nan ordinary note about roots\n");
    const secret = join(tmp("secret-"), "passwd");
    writeFileSync(secret, "root:x:0:0:canary-secret-line:/root:/bin/bash\n");
    symlinkSync(secret, join(repo, "notes", "pw.md"));
    Bun.spawnSync(["git", "-C", repo, "init", "-q"]);
    const brain = (args: string[]) => run(binary("brain"), [...args, "--repo", repo, "--json"]);
    const got = await brain(["note", "get", "--id", "pw"]);
    expect([got.code, got.json.error.code]).toEqual([3, "INVALID_INPUT"]);
    const search = await brain(["search", "--query", "root"]);
    const list = await brain(["note", "list"]);
    for (const r of [got, search, list]) expect(r.stdout + r.stderr).not.toContain("canary-secret-line");
    expect(list.json.data.unreadable.map((u: any) => u.id)).toEqual(["pw"]);
  });
});

describe("a secret echoed back in its encodings", () => {
  test("raw, JSON-escaped, URL-encoded and base64 forms from a local upstream never reach stdout, stderr or an artifact", async () => {
    const key = 'canary/Key+"42"&x=y é';
    const forms = [
      key,
      JSON.stringify(key).slice(1, -1),
      encodeURIComponent(key),
      Buffer.from(key).toString("base64"),
      Buffer.from(key).toString("base64url"),
    ];
    const echo = `echo: ${forms.join(" | ")}`;
    let answer: "ok" | "fail" = "ok";
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch() {
        if (answer === "fail")
          return new Response(JSON.stringify({ error: { message: `bad key ${echo}` } }), { status: 401 });
        const content = JSON.stringify({
          summary: echo,
          actions: [{ priority: 1, title: echo, why: echo, rules: ["broken-link"], pages: [] }],
        });
        return Response.json({
          choices: [{ message: { content } }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
      },
    });
    try {
      const dir = tmp("canary-run-");
      for (const stage of [
        ["crawl", "--dir", join(root, "examples", "site"), "--base-url", "https://harbour.example"],
        ["extract"],
        ["audit"],
        ["score"],
      ])
        expect((await run(binary("seo"), [...stage, "--run-dir", dir, "--json"])).code).toBe(0);
      const outputs: string[] = [];
      for (const mode of ["ok", "fail"] as const) {
        answer = mode;
        const r = await run(
          binary("seo"),
          [
            "synthesize",
            "--run-dir",
            dir,
            "--base-url",
            `http://127.0.0.1:${server.port}/v1`,
            "--model",
            "openai/gpt-4o-mini",
            "--json",
          ],
          { env: { OPENROUTER_API_KEY: key } },
        );
        expect(r.code).toBe(mode === "ok" ? 0 : 3);
        outputs.push(r.stdout, r.stderr);
      }
      for (const f of readdirSync(dir)) outputs.push(readFileSync(join(dir, f), "utf8"));
      expect(outputs.join("\n")).toContain("[REDACTED]");
      for (const form of forms) for (const text of outputs) expect(text.includes(form) ? form : null).toBeNull();
    } finally {
      server.stop(true);
    }
  });
});
