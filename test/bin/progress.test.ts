/**
 * Long work shows progress to a person at a terminal (stderr is a
 * pseudo-terminal from script(1)), and never on stdout, off a terminal or
 * under --json (stdout to a file is JSON anyway).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseEnv, binary, root, run } from "../helpers/bin.ts";
import { commitAll } from "../helpers/notes-repo.ts";
import { removeWorkspaces, workspace } from "../helpers/mutation.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;

/** argv run with stderr on a terminal and stdout to a file: what the terminal showed, and what stdout got. */
function onTerminal(argv: string[], env: Record<string, string> = {}): { terminal: string; stdout: string } {
  const out = join(mkdtempSync(join(tmpdir(), "progress-")), "stdout.json");
  const command = `NO_COLOR=1 ${argv.map(quote).join(" ")} > ${quote(out)}`;
  const p = Bun.spawnSync(["script", "-qec", command, "/dev/null"], {
    stdout: "pipe",
    env: { ...baseEnv(env), TERM: "xterm" },
  });
  return { terminal: p.stdout.toString().replace(/\r/g, ""), stdout: readFileSync(out, "utf8") };
}

describe("progress on a terminal", () => {
  test("seo crawl: pages counted on stderr; stdout is the one envelope; piped, nothing", async () => {
    const args = ["crawl", "--dir", join(root, "examples", "site")];
    const t = onTerminal([binary("seo"), ...args, "--run-dir", mkdtempSync(join(tmpdir(), "crawl-"))]);
    expect(t.terminal).toMatch(/crawled pages: \d+/);
    expect(t.stdout).not.toContain("crawled pages");
    expect(JSON.parse(t.stdout).ok).toBe(true);
    const piped = await run(binary("seo"), [...args, "--run-dir", mkdtempSync(join(tmpdir(), "crawl-"))]);
    expect(piped.stderr).not.toContain("crawled pages");
  });

  test("apply: items counted to the last one", async () => {
    const ws = await workspace();
    expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
    expect((await ws.gate(["review", "--plan", ws.run])).code).toBe(0);
    const n = JSON.parse(readFileSync(join(ws.run, "plan.json"), "utf8")).items.length;
    const t = onTerminal([binary("seo"), "apply", "--plan", ws.run], ws.env);
    expect(t.terminal).toContain(`applied: ${n} of ${n}`);
    expect(JSON.parse(t.stdout).data.executed).toBe(n);
  }, 120_000);

  test("extract, audit and plan: pages counted to the last one; under --json, nothing", async () => {
    const ws = await workspace({ pages: 30, maxPages: 30 });
    for (const [stage, label] of [
      ["extract", "extracted pages"],
      ["audit", "audited pages"],
      ["plan", "planned pages"],
    ] as const) {
      const t = onTerminal([binary("seo"), stage, "--run-dir", ws.run], ws.env);
      expect(t.terminal).toContain(`${label}: 30 of 30`);
      expect(JSON.parse(t.stdout).ok).toBe(true);
      expect(onTerminal([binary("seo"), stage, "--run-dir", ws.run, "--json"], ws.env).terminal).not.toContain(label);
    }
  }, 120_000);

  test("brain search over a repository indexed for the first time: notes counted", () => {
    const repo = mkdtempSync(join(tmpdir(), "progress-kb-"));
    mkdirSync(join(repo, "notes"));
    for (let i = 0; i < 2000; i++)
      writeFileSync(
        join(repo, "notes", `n-${i}.md`),
        `---\nid: n-${i}\ntitle: Note ${i}\ntags: [t]\n---\n\nwhetstone ${i}\n`,
      );
    commitAll(repo);
    const t = onTerminal([binary("brain"), "search", "--query", "whetstone", "--repo", repo]);
    expect(t.terminal).toContain("indexed notes: 2000 of 2000");
    expect(JSON.parse(t.stdout).ok).toBe(true);
  });
});
