/**
 * A memory save's working files (brain --mcp --profile memory) hold the raw
 * conversation: they live in a folder only its user may enter, are never
 * readable by another user while the save runs, and are gone when it ends,
 * saved or failed. Driven by the official SDK client against the compiled binary.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseEnv, binary } from "../helpers/bin.ts";
import { knowledgeBase } from "../helpers/notes-repo.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { rounds } from "../helpers/rounds.ts";

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
}, SLOW_HOOK);

const CANARY = "sk-or-v1-CANARYMEMORY0a1b2c3d4e5f6a7b8c9d";

/**
 * Every git run of brain's (reading HEAD while planning, committing while
 * applying) first records the mode of each save folder and of every file in
 * it: a look at the working files from another process, at fixed points
 * while each save is under way.
 */
function gitThatLooks(dir: string): { path: string; log: string } {
  const bin = join(dir, "bin");
  const log = join(dir, "modes.log");
  Bun.spawnSync(["mkdir", "-p", bin]);
  writeFileSync(
    join(bin, "git"),
    `#!/bin/sh\nfor d in "$TMPDIR"/brain-memory-*; do\n  [ -e "$d" ] && stat -c '%a %n' "$d" "$d"/* >> "${log}" 2>/dev/null\ndone\nexec ${Bun.which("git")} "$@"\n`,
  );
  chmodSync(join(bin, "git"), 0o755);
  writeFileSync(log, "");
  return { path: `${bin}:${process.env.PATH}`, log };
}

/** Saves in a row: ten under `npm test` (the eighth refused), twenty under `npm run soak`. */
const SAVES = rounds(10, 20);

const leftOver = (dir: string) => readdirSync(dir).filter((n) => n.startsWith("brain-memory-"));
const text = (r: Record<string, unknown>) => (r.content as { text: string }[])[0]!.text;

describe("a memory save's working files", () => {
  test(`${SAVES} saves (one of them refused by a dirty work tree) leave no brain-memory-* folder, and while each ran its folder was 0700 and its files 0600`, async () => {
    const kb = knowledgeBase();
    const saves = mkdtempSync(join(tmpdir(), "saves-"));
    const git = gitThatLooks(mkdtempSync(join(tmpdir(), "spy-")));
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: binary("brain"),
        args: ["--mcp", "--profile", "memory"],
        env: baseEnv({ ...kb.env, TMPDIR: saves, PATH: git.path }),
        stderr: "pipe",
      }),
    );
    clients.push(client);
    const outcomes: string[] = [];
    for (let i = 0; i < SAVES; i++) {
      const dirty = i === 7; // an untracked file: brain refuses to plan, and the save fails
      if (dirty) writeFileSync(join(kb.repo, "stray.md"), "not committed\n");
      const r =
        i % 2 === 0
          ? await client.callTool({ name: "mem_save_fact", arguments: { fact: `Fact ${i}: the key is ${CANARY}.` } })
          : await client.callTool({
              name: "mem_save_turn",
              arguments: { sessionKey: "s", messages: [{ role: "user", content: `turn ${i} with ${CANARY}` }] },
            });
      if (dirty) rmSync(join(kb.repo, "stray.md"));
      outcomes.push(r.isError ? JSON.parse(text(r)).code : JSON.parse(text(r)).saved ? "saved" : "?");
    }
    expect(outcomes.filter((o) => o === "saved").length).toBe(SAVES - 1);
    expect(outcomes[7]).toBe("PRECONDITION_FAILED");
    expect(leftOver(saves)).toEqual([]);

    const seen = readFileSync(git.log, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const [mode, path] = l.split(" ") as [string, string];
        return { mode, name: path.slice(saves.length + 1) };
      });
    const folders = seen.filter((s) => !s.name.includes("/"));
    const files = seen.filter((s) => s.name.includes("/"));
    // Each save was looked at while it ran, its plan and (while applying) its ledger in place.
    expect(new Set(folders.map((f) => f.name)).size).toBe(SAVES);
    expect(new Set(files.filter((f) => f.name.endsWith("/plan.json")).map((f) => f.name)).size).toBe(SAVES - 1);
    expect(files.some((f) => f.name.endsWith("/ledger.sqlite"))).toBe(true);
    expect([...new Set(folders.map((f) => f.mode))]).toEqual(["700"]);
    expect([...new Set(files.map((f) => f.mode))]).toEqual(["600"]);
  }, 120_000);

  test("a save waiting for a person keeps its plan (the answer names it) in a folder only its user may enter", async () => {
    const kb = knowledgeBase();
    const saves = mkdtempSync(join(tmpdir(), "saves-"));
    writeFileSync(
      kb.env.AGENT_POLICY_FILE!,
      JSON.stringify({
        version: "v2",
        max_items: 10,
        actions: {},
        tools: { brain: { fleet: true } },
        roots: { brain: [kb.dir] },
      }),
    );
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: binary("brain"),
        args: ["--mcp", "--profile", "memory"],
        env: baseEnv({ ...kb.env, TMPDIR: saves }),
        stderr: "pipe",
      }),
    );
    clients.push(client);
    const waiting = JSON.parse(
      text(await client.callTool({ name: "mem_save_fact", arguments: { fact: `The key is ${CANARY}.` } })),
    );
    expect(waiting.code).toBe("APPROVAL_REQUIRED");
    expect(leftOver(saves)).toEqual([waiting.plan.split("/").at(-2)]);
    const folder = join(saves, leftOver(saves)[0]!);
    expect([
      statSync(folder).mode & 0o777,
      ...readdirSync(folder).map((f) => statSync(join(folder, f)).mode & 0o777),
    ]).toEqual([0o700, 0o600]);
  }, 120_000);
});
