/**
 * The kit as its users get it: `npm pack`, installed into an empty folder
 * outside this repository with a throwaway HOME and a PATH that does not
 * reach this repository. There `npx agent-cli-kit new weather` makes a tool
 * repository whose own CI script (install, build, type-check, tests, verify
 * --strict with CI set) passes as generated; its write and a hand-written
 * tool's go through the gate the package ships (`npx agent-cli-kit gate`);
 * and a Python tool passes `npx agent-cli-kit verify` from its own folder.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { root } from "../helpers/bin.ts";

const MINUTES = 60_000;

interface Ran {
  readonly exit: number;
  readonly stdout: string;
  readonly stderr: string;
}

let base = "";
let home = "";
let folder = "";
let tarball = "";

/** PATH with nothing of this repository on it: node and npm, and the system's folders. */
function outsidePath(): string {
  const node = dirname(process.execPath.endsWith("/node") ? process.execPath : (Bun.which("node") ?? "/usr/bin/node"));
  const parts = [node, ...(process.env.PATH ?? "").split(delimiter)].filter((p) => p && !p.startsWith(root));
  return [...new Set(parts)].join(delimiter);
}

function envOutside(extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: home, PATH: outsidePath(), TMPDIR: tmpdir(), LANG: "C.UTF-8", ...extra };
}

async function sh(argv: string[], cwd: string, env: Record<string, string> = envOutside()): Promise<Ran> {
  await using p = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exit] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { exit, stdout, stderr };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Wall times of each command, run in turn (one of each per round, after a warm-up), so both see the same machine. */
function timesSideBySide(commands: string[][], rounds: number): number[][] {
  const times = commands.map(() => [] as number[]);
  for (let round = -1; round < rounds; round++)
    commands.forEach((argv, i) => {
      const started = performance.now();
      Bun.spawnSync(argv, { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
      if (round >= 0) times[i]!.push(performance.now() - started);
    });
  return times;
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "outside-"));
  expect(base.startsWith(root)).toBe(false);
  home = join(base, "home");
  folder = join(base, "project");
  mkdirSync(home);
  mkdirSync(folder);
  const packed = await sh(["npm", "pack", "--json", "--pack-destination", folder], root, {
    ...process.env,
    HOME: home,
  } as Record<string, string>);
  expect(packed.exit).toBe(0);
  const [info] = JSON.parse(packed.stdout) as {
    filename: string;
    size: number;
    unpackedSize: number;
    entryCount: number;
  }[];
  tarball = join(folder, info!.filename);
  console.log(
    `npm pack: ${info!.filename}, ${(info!.size / 1024).toFixed(1)} KiB packed, ${(info!.unpackedSize / 1024).toFixed(1)} KiB unpacked, ${info!.entryCount} files`,
  );
  const installed = await sh(["npm", "install", "--no-audit", "--no-fund", tarball], folder);
  expect({ exit: installed.exit, stderr: installed.stderr.includes("EBADENGINE") ? installed.stderr : "" }).toEqual({
    exit: 0,
    stderr: "",
  });
}, 10 * MINUTES);

// Two installs and an image (~500 MB): removed here, with the time that takes, not by the run's last hook.
afterAll(() => rmSync(base, { recursive: true, force: true, maxRetries: 3 }), 2 * MINUTES);

describe("the packed kit, installed outside this repository", () => {
  test("ships the kit, its command, the gate and the verifier, and no tests, fixtures, other fleet tools or example sites", async () => {
    const listed = await sh(["tar", "-tzf", tarball], folder);
    const files = listed.stdout
      .trim()
      .split("\n")
      .map((f) => f.replace(/^package\//, ""));
    expect(
      files.filter(
        (f) =>
          /^(test|examples|scripts)\//.test(f) ||
          (f.startsWith("tools/") && !f.startsWith("tools/gate/")) ||
          f.endsWith(".test.ts"),
      ),
    ).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        "package.json",
        "src/kit/index.ts",
        "src/author/launch.js",
        "verify/main.ts",
        "src/author/template/tool.ts.tmpl",
        "src/gate/scope.ts",
        "tools/gate/tool.ts",
      ]),
    );
  });

  test("import 'agent-cli-kit' under Node says the runtime is Bun's, not ERR_MODULE_NOT_FOUND", async () => {
    const r = await sh(["node", "--input-type=module", "-e", "await import('agent-cli-kit')"], folder);
    expect(r.exit).not.toBe(0);
    expect(r.stderr).toContain("agent-cli-kit runs on Bun");
  });

  test(
    "npx agent-cli-kit new weather makes a repository whose own CI script passes as generated",
    async () => {
      // No --kit: the new repository names the kit as it was installed here (the tarball, relative to it).
      const made = await sh(["npx", "agent-cli-kit", "new", "weather", "--json"], folder);
      const answer = JSON.parse(made.stdout);
      expect({ exit: made.exit, ok: answer.ok, error: answer.error }).toEqual({ exit: 0, ok: true, error: null });
      expect(answer.data.golden_cases).toBeGreaterThanOrEqual(5);
      const repo = join(folder, "weather");
      const manifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
      expect(manifest.devDependencies).toMatchObject({
        "agent-cli-kit": `file:../${tarball.slice(tarball.lastIndexOf("/") + 1)}`,
        typescript: expect.any(String),
        "@types/bun": expect.any(String),
      });
      expect(readFileSync(join(repo, "ci.sh"), "utf8")).toContain("npx tsc --noEmit");
      const ci = await sh(["bash", "ci.sh"], repo, envOutside({ CI: "true" }));
      if (ci.exit !== 0) console.log(ci.stdout.slice(-3000), ci.stderr.slice(-3000));
      expect(ci.exit).toBe(0);
      // The generated write test ran: plan → npx agent-cli-kit gate review → apply → list.
      expect(ci.stderr).toContain("item create → gate review → apply → item list shows the new item");
      expect(readFileSync(join(repo, "dist", "verify.xml"), "utf8")).toContain('failures="0"');
      // Start-up, side by side in one run: the generated binary against the fleet's seo.
      const [weather, seo] = timesSideBySide(
        [
          [join(repo, "dist", "weather"), "--describe"],
          [join(root, "dist", "seo"), "--describe"],
        ],
        21,
      ) as [number[], number[]];
      console.log(
        `--describe, median of 21 rounds: weather ${median(weather).toFixed(1)} ms, seo ${median(seo).toFixed(1)} ms (${(median(weather) / median(seo)).toFixed(2)}×)`,
      );
    },
    15 * MINUTES,
  );

  test(
    "the gate the package ships judges the generated write and a hand-written tool's own action; a tool its policy does not name is refused with the entry to add",
    async () => {
      const weather = join(folder, "weather", "dist", "weather");
      expect(existsSync(weather)).toBe(true); // made by the test above
      // A hand-written tool (test/fixtures/ticket), built here with the installed kit.
      cpSync(join(root, "test", "fixtures", "ticket"), join(folder, "ticket"), { recursive: true });
      const built = await sh(["npx", "agent-cli-kit", "build", "--dir", "ticket", "--json"], folder);
      expect([built.exit, JSON.parse(built.stdout).error]).toEqual([0, null]);
      for (const store of ["items", "tickets"]) mkdirSync(join(folder, store));
      const gate = async (args: string[], env: Record<string, string>) => {
        const r = await sh(["npx", "agent-cli-kit", "gate", ...args, "--json"], folder, envOutside(env));
        return { exit: r.exit, json: JSON.parse(r.stdout) };
      };
      const init = await gate(
        [
          "init",
          "--dir",
          "gate-setup",
          "--tool",
          "weather/dist/weather",
          "--tool",
          "ticket/dist/ticket",
          "--root",
          "weather=items",
          "--root",
          "ticket=tickets",
        ],
        {},
      );
      expect([init.exit, init.json.error, init.json.data.tools]).toEqual([0, null, ["weather", "ticket"]]);
      const keys = {
        AGENT_GATE_PRIVATE_KEY: readFileSync(join(folder, "gate-setup", "gate.key"), "utf8"),
        AGENT_GATE_PUBLIC_KEY: readFileSync(join(folder, "gate-setup", "gate.pub"), "utf8").trim(),
        AGENT_POLICY_FILE: join(folder, "gate-setup", "policy.json"),
      };
      const through = async (bin: string, plan: string[], runDir: string, list: string[]) => {
        const planned = await sh([bin, ...plan, "--run-dir", runDir, "--json"], folder);
        expect(planned.exit).toBe(0);
        const review = await gate(["review", "--plan", runDir], keys);
        expect([review.exit, review.json.data?.decision]).toEqual([0, "approved"]);
        expect((await sh([bin, "apply", "--plan", runDir, "--json"], folder, envOutside(keys))).exit).toBe(0);
        return JSON.parse((await sh([bin, ...list, "--limit", "10", "--json"], folder)).stdout).data.items.map(
          (i: { id: string }) => i.id,
        );
      };
      expect(
        await through(
          weather,
          ["item", "create", "--store", "items", "--id", "echo", "--title", "Fifth"],
          "run-weather",
          ["item", "list", "--store", "items"],
        ),
      ).toContain("echo");
      const ticket = join(folder, "ticket", "dist", "ticket");
      expect(
        await through(
          ticket,
          ["ticket", "create", "--store", "tickets", "--id", "t-1", "--title", "First"],
          "run-ticket",
          ["ticket", "list", "--store", "tickets"],
        ),
      ).toEqual(["t-1"]);
      // A policy that names weather only: ticket's plan is refused, the hint the entry to add.
      const policy = JSON.parse(readFileSync(keys.AGENT_POLICY_FILE, "utf8"));
      delete policy.tools.ticket;
      writeFileSync(keys.AGENT_POLICY_FILE, JSON.stringify(policy));
      await sh(
        [
          ticket,
          "ticket",
          "create",
          "--store",
          "tickets",
          "--id",
          "t-2",
          "--title",
          "Second",
          "--run-dir",
          "run-ticket-2",
          "--json",
        ],
        folder,
      );
      const refused = await gate(["review", "--plan", "run-ticket-2"], keys);
      expect([refused.exit, refused.json.error.code]).toEqual([5, "POLICY_DENIED"]);
      expect(refused.json.error.hint).toContain(
        '{"tools":{"ticket":{"path":"./bin/ticket","sha256":"<sha256sum of ./bin/ticket>"}}}',
      );
    },
    10 * MINUTES,
  );

  test(
    "the tool made outside joins the fleet's image: the multicall, its link, tools.json and the fleet skill",
    async () => {
      const out = join(folder, "image-build");
      const built = await sh(
        ["bun", join(root, "scripts", "build.ts"), "--out", out, "--with", join(folder, "weather"), "fleet"],
        root,
        { ...process.env } as Record<string, string>,
      );
      expect(built.exit).toBe(0);
      const linked = await sh([join(out, "image", "bin", "weather"), "item", "get", "--id", "alpha"], folder);
      expect([linked.exit, JSON.parse(linked.stdout).data.item.id]).toEqual([0, "alpha"]);
      const declared = JSON.parse(readFileSync(join(out, "tools.json"), "utf8")) as { tools: Record<string, unknown> };
      expect(Object.keys(declared.tools).filter((n) => n.startsWith("weather_"))).toEqual(
        expect.arrayContaining(["weather_get_item", "weather_list_item", "weather_create_item"]),
      );
      expect(readFileSync(join(out, "share", "SKILL.md"), "utf8")).toContain("weather");
    },
    5 * MINUTES,
  );

  test(
    "a Python tool passes npx agent-cli-kit verify from its own folder",
    async () => {
      const tool = join(folder, "shelf-tool");
      cpSync(join(root, "test", "fixtures", "outside-tool"), tool, { recursive: true });
      const r = await sh(
        ["npx", "agent-cli-kit", "verify", "--golden", "golden", "--json", "./shelf"],
        tool,
        envOutside({ CI: "true" }),
      );
      const answer = JSON.parse(r.stdout);
      expect({ exit: r.exit, ok: answer.ok, conforming: answer.data?.summary?.conforming }).toEqual({
        exit: 0,
        ok: true,
        conforming: 1,
      });
    },
    5 * MINUTES,
  );
});
