/** What the plan → gate → apply tests share: keys, a policy, a copy of a site with its audit done. */
import { generateKeyPairSync } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import seoTool from "../../tools/seo/tool.ts";
import { baseEnv, binary, binaryFor, root, run, type RunResult } from "./bin.ts";
import { runInProcess } from "./in-process.ts";
import { postgresUrl } from "./postgres.ts";

export function gateKeys(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privateKey: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    publicKey: publicKey.export({ format: "der", type: "spki" }).toString("base64"),
  };
}

/** The person every test policy names as its approver, and the key they approve with (AGENT_APPROVER_KEY). */
export const APPROVER = { name: "Ada Lovelace", ...gateKeys() };

export const SEO_ACTIONS = [
  "set-lang",
  "add-viewport",
  "add-canonical",
  "remove-duplicate-canonical",
  "add-meta-description",
  "fix-broken-link",
];

export function writePolicy(dir: string, version = "p1", limits: Record<string, object> = {}, maxItems = 1000): string {
  const path = join(dir, "policy.json");
  const actions = Object.fromEntries(
    SEO_ACTIONS.map((a) => [`seo.${a}`, { auto_approve: true, max_write_bytes: 4000, ...(limits[a] ?? {}) }]),
  );
  writeFileSync(
    path,
    JSON.stringify({
      version,
      max_items: maxItems,
      actions,
      tools: { seo: { fleet: true } },
      roots: { seo: [dir] },
      approvers: [{ name: APPROVER.name, public_key: APPROVER.publicKey }],
    }),
  );
  return path;
}

export interface Workspace {
  dir: string;
  site: string;
  run: string;
  env: Record<string, string>;
  seo(args: string[], extra?: Record<string, string>): Promise<RunResult>;
  gate(args: string[], extra?: Record<string, string>): Promise<RunResult>;
}

/** A generated site of `pages` pages, each missing lang and viewport: many items on many files. */
export function generateSite(dir: string, pages: number): void {
  mkdirSync(dir, { recursive: true });
  const link = (i: number) => `<a href="/p${i}.html">page ${i}</a>`;
  for (let i = 0; i < pages; i++)
    writeFileSync(
      join(dir, i === 0 ? "index.html" : `p${i}.html`),
      `<!doctype html>\n<html>\n<head>\n  <meta charset="utf-8">\n  <title>Page ${i} of the generated site</title>\n  <meta name="description" content="Page ${i} of a generated site, used to measure and race the apply engine.">\n  <link rel="canonical" href="https://gen.example/${i === 0 ? "" : `p${i}.html`}">\n</head>\n<body>\n  <h1>Page ${i}</h1>\n  <p>${Array.from({ length: 30 }, (_, k) => `word${k}`).join(" ")}</p>\n  <p>${(i === 0 ? Array.from({ length: pages - 1 }, (_, k) => k + 1) : [1]).map(link).join(" ")}</p>\n</body>\n</html>\n`,
    );
}

/** Every file under `dir`, by relative path, with its bytes (latin1, so any byte compares). */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, "latin1");
    }
  };
  walk(dir);
  return out;
}

/** `<tool> apply --plan PLAN --json` started in the background, as a racing, crashing or slow applier is. */
export function spawnApply(bin: string, plan: string, env: Record<string, string>, extra: readonly string[] = []) {
  return Bun.spawn([bin, "apply", "--plan", plan, "--json", ...extra], {
    env: baseEnv(env),
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
}

/** Its exit and envelope: null when it was killed before printing one, the start of what it printed when that was not JSON. */
export async function finishApply(p: ReturnType<typeof spawnApply>): Promise<{ code: number; json: any }> {
  const [text, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  try {
    return { code, json: text ? JSON.parse(text) : null };
  } catch {
    return { code, json: { unparsable: text.slice(0, 200) } };
  }
}

/** Both ledger engines, as AGENT_LEDGER_URL gives them: unset (a SQLite file beside the plan), or PostgreSQL. */
export const LEDGER_ENGINES = {
  sqlite: (): string | undefined => undefined,
  postgres: (): string | undefined => postgresUrl(),
} as const;

/** `seo plan`, then the gate's review; the plan's data. Throws, saying why, if either fails. */
export async function planAndReview(ws: Workspace): Promise<any> {
  const p = await ws.seo(["plan", "--run-dir", ws.run]);
  if (p.code !== 0) throw new Error(`seo plan failed: ${p.stdout}`);
  const g = await ws.gate(["review", "--plan", ws.run]);
  if (g.json.error) throw new Error(`gate review refused: ${g.stdout}`);
  return p.json.data;
}

/** The action log of the workspace's plan. */
export async function actionLog(ws: Workspace): Promise<any[]> {
  const r = await ws.seo(["action", "list", "--plan", ws.run, "--limit", "1000"]);
  if (r.code !== 0) throw new Error(`seo action list failed: ${r.stdout}`);
  return r.json.data.items;
}

const made: string[] = [];

/** Removes every workspace made so far: call it from the test file's afterAll. */
export function removeWorkspaces(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A site with its audit done, keys and a policy. `door`: how `seo` runs: the
 * compiled binary (a process, for crashes, races and bytes), or in-process
 * through the kit's seam. The gate is always its binary: its read-back starts
 * the seo binary beside it.
 */
export async function workspace(
  opts: { ledgerUrl?: string; pages?: number; maxPages?: number; door?: "binary" | "in-process" } = {},
): Promise<Workspace> {
  const dir = mkdtempSync(join(tmpdir(), "mut-"));
  made.push(dir);
  const site = join(dir, "site");
  if (opts.pages) generateSite(site, opts.pages);
  else cpSync(join(root, "examples", "site"), site, { recursive: true });
  const keys = gateKeys();
  const env: Record<string, string> = {
    AGENT_GATE_PRIVATE_KEY: keys.privateKey,
    AGENT_GATE_PUBLIC_KEY: keys.publicKey,
    AGENT_POLICY_FILE: writePolicy(dir),
    AGENT_APPROVER_KEY: APPROVER.privateKey,
    ...(opts.ledgerUrl ? { AGENT_LEDGER_URL: opts.ledgerUrl } : {}),
  };
  const runDir = join(dir, "run");
  const ws: Workspace = {
    dir,
    site,
    run: runDir,
    env,
    seo: (args, extra = {}) =>
      opts.door === "in-process"
        ? runInProcess(seoTool, [...args, "--json"], { env: { ...env, ...extra } })
        : run(binaryFor("seo", extra), [...args, "--json"], { env: { ...env, ...extra }, timeoutMs: 60_000 }),
    gate: (args, extra = {}) =>
      run(binary("gate"), [...args, "--json"], { env: { ...env, ...extra }, timeoutMs: 60_000 }),
  };
  const base = opts.pages ? "https://gen.example" : "https://harbour.example";
  for (const stage of [
    ["crawl", "--dir", site, "--base-url", base, "--max-pages", String(opts.maxPages ?? 500)],
    ["extract"],
    ["audit"],
  ]) {
    const r = await ws.seo([...stage, "--run-dir", runDir]);
    if (r.code !== 0) throw new Error(`seo ${stage[0]} failed: ${r.stdout}${r.stderr}`);
  }
  return ws;
}
