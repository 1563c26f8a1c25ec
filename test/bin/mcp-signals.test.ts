/**
 * Every `--mcp` server ends cleanly on SIGTERM and SIGINT, driven by the SDK's
 * client against the compiled binaries: the call in flight is answered
 * (CANCELLED when its command was stopped), nothing is half-written, the
 * server exits 130, and no child of it outlives it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { alive, childrenOf, serveChild, until } from "../helpers/mcp-child.ts";
import { planAndReview, removeWorkspaces, workspace } from "../helpers/mutation.ts";
import { knowledgeBase } from "../helpers/notes-repo.ts";

afterAll(removeWorkspaces, SLOW_HOOK);

/** Each command's execution held for a minute: the call is surely in flight when the signal comes. */
const SLOW = { AGENT_KIT_FAILPOINT: "delay-execute:60000" };

interface Case {
  tool: string;
  args: string[];
  /** The call, and what it needs; `slow`: it is still running (its apply) when the signal comes, else the server is idle after answering it. */
  setup(): Promise<{
    env: Record<string, string>;
    name: string;
    arguments: Record<string, unknown>;
    slow: boolean;
    untouched?: () => void;
  }>;
}

/** Every process below `pid`, now. */
const descendants = (pid: number): number[] => childrenOf(pid).flatMap((c) => [c, ...descendants(c)]);

/** Whether a process below `pid` is running `apply` (the slow step of a call). */
const applying = (pid: number): boolean =>
  descendants(pid).some((c) => {
    try {
      return readFileSync(`/proc/${c}/cmdline`, "utf8").split("\0").includes("apply");
    } catch {
      return false;
    }
  });

const CASES: Record<string, Case> = {
  "seo (apply in flight)": {
    tool: "seo",
    args: [],
    async setup() {
      const ws = await workspace();
      await planAndReview(ws);
      const before = readdirSync(ws.site, { recursive: true });
      return {
        env: { ...ws.env, ...SLOW },
        name: "seo_apply",
        arguments: { plan: ws.run },
        slow: true,
        untouched: () => expect(readdirSync(ws.site, { recursive: true })).toEqual(before),
      };
    },
  },
  "brain (apply in flight)": {
    tool: "brain",
    args: [],
    async setup() {
      const k = knowledgeBase();
      expect((await k.brain(["note", "create", "--title", "Mid-call", "--run-dir", k.run])).code).toBe(0);
      expect((await k.gate(["review", "--plan", k.run])).code).toBe(0);
      const untouched = () =>
        expect([
          k.git("status", "--porcelain", "--untracked-files=all"),
          k.git("rev-list", "--count", "HEAD").trim(),
        ]).toEqual(["", "1"]);
      return { env: { ...k.env, ...SLOW }, name: "brain_apply", arguments: { plan: k.run }, slow: true, untouched };
    },
  },
  "brain --profile memory (a save in flight)": {
    tool: "brain",
    args: ["--profile", "memory"],
    async setup() {
      const k = knowledgeBase();
      const untouched = () =>
        expect([
          k.git("status", "--porcelain", "--untracked-files=all"),
          k.git("rev-list", "--count", "HEAD").trim(),
        ]).toEqual(["", "1"]);
      return {
        env: { ...k.env, ...SLOW },
        name: "mem_save_turn",
        arguments: { role: "user", content: "hello" },
        slow: true,
        untouched,
      };
    },
  },
  "gate (idle, after a review)": {
    tool: "gate",
    args: [],
    async setup() {
      const ws = await workspace();
      expect((await ws.seo(["plan", "--run-dir", ws.run])).code).toBe(0);
      return { env: ws.env, name: "gate_review", arguments: { plan: ws.run }, slow: false };
    },
  },
  "harness (idle, after a call)": {
    tool: "harness",
    args: [],
    async setup() {
      return { env: {}, name: "harness_render_history", arguments: {}, slow: false };
    },
  },
};

for (const signal of ["SIGTERM", "SIGINT"] as const)
  describe(`${signal} to an --mcp server`, () => {
    for (const [name, c] of Object.entries(CASES))
      test(`${name}: the call is answered or CANCELLED, nothing is half-written, exit 130, no child left`, async () => {
        const s = await c.setup();
        const server = await serveChild(c.tool, c.args, s.env);
        const pending = server.client.callTool({ name: s.name, arguments: s.arguments }).then(
          (result) => ({ result }),
          (error: Error) => ({ error: error.message }),
        );
        let below: number[] = [];
        if (s.slow) await until(() => applying(server.proc.pid) && (below = descendants(server.proc.pid)).length > 0);
        else expect("result" in (await pending)).toBe(true);
        const sent = performance.now();
        server.proc.kill(signal);
        const answer = await pending;
        const code = await server.proc.exited;
        const ms = Math.round(performance.now() - sent);
        console.log(`${signal} ${name}: exit ${code} after ${ms} ms; ${below.length} child process(es) at the signal`);
        expect(code).toBe(130);
        expect("result" in answer).toBe(true);
        const result = (answer as { result: any }).result;
        if (s.slow) expect(JSON.parse(result.content[0].text).code).toBe("CANCELLED");
        await until(() => below.every((pid) => !alive(pid)), 10_000);
        expect(ms).toBeLessThan(10_000); // a bound on a hang, not a measurement: the grace period is 1.5 s
        expect(await server.stderr).toContain(`${signal}: stopping`);
        s.untouched?.();
      }, 120_000);
  });
