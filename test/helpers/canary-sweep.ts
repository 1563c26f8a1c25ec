/**
 * The canary sweep, run once: every command of every tool (seo, brain, gate,
 * harness) through every door (the command line's flags, a `--params -`
 * document on stdin, MCP with the official SDK client, a harness job's steps,
 * the receiver), with canary secrets in eight encodings injected where an
 * agent or an upstream could put them (flags, stdin params, page and note
 * text, an LLM endpoint's echo). It returns every text that left: each run's
 * stdout and stderr, each MCP answer, and every file written under its root
 * (run dirs, reports, ledgers, plan.json, history pages, the receiver's
 * store). test/bin/canary-sweep.test.ts reads it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import S3rver from "s3rver";
import { binary, run } from "./bin.ts";
import { type Canaries, canaryEnv, ENCODINGS, makeCanaries, payloads } from "./canaries.ts";
import { chatServer } from "./chat-server.ts";
import { receiverProcess } from "./harness.ts";
import { mcpSweep } from "./canary-mcp.ts";
import { knowledgeBase } from "./notes-repo.ts";

export interface Place {
  readonly door: "command line" | "stdin params" | "MCP" | "harness job" | "receiver" | "file";
  readonly what: string;
  readonly text: string;
}

export interface Sweep {
  readonly canaries: Canaries;
  readonly places: Place[];
  /** Every command swept, as `tool command`. */
  readonly commands: Set<string>;
}

/** A command, the flags that point it at the sweep's fixtures, and the flags that take a canary. */
export interface Target {
  readonly tool: string;
  readonly words: string[];
  readonly base: string[];
  readonly free: string[];
}

export function targets(f: {
  site: string;
  seoRun: string;
  repo: string;
  plan: string;
  job: string;
  gateInit: string;
}): Target[] {
  const seo = (words: string, free: string[], base: string[] = []): Target => ({
    tool: "seo",
    words: words.split(" "),
    base: [...base, "--run-dir", f.seoRun],
    free,
  });
  const brain = (words: string, free: string[], base: string[] = ["--repo", f.repo]): Target => ({
    tool: "brain",
    words: words.split(" "),
    base,
    free,
  });
  const other = (tool: string, words: string, free: string[], base: string[] = []): Target => ({
    tool,
    words: words.split(" "),
    base,
    free,
  });
  return [
    seo("crawl", ["url"], ["--dir", f.site]),
    seo("extract", []),
    seo("audit", ["url"]),
    seo("score", []),
    seo("synthesize", ["model"]),
    seo("plan", ["lang"]),
    seo("apply", ["plan"]),
    seo("target list", [], ["--plan", f.plan]),
    seo("action list", ["plan"]),
    seo("plan-item list", ["action"], ["--plan", f.seoRun]),
    seo("page list", ["query"]),
    seo("page get", ["url"]),
    seo("finding list", ["url"]),
    seo("finding get", ["id"]),
    brain("note list", ["text", "tag"]),
    brain("note get", ["id"]),
    brain("search", ["query", "tag"]),
    brain("note create", ["title", "body", "source", "tag"]),
    brain("note update", ["title", "body", "source"], ["--repo", f.repo, "--id", "harbour-history"]),
    brain("note delete", ["id"]),
    brain("apply", ["plan"], []),
    brain("target list", [], ["--plan", f.plan]),
    brain("action list", ["plan"], []),
    brain("plan-item list", ["action"], ["--plan", f.plan]),
    other("gate", "review", ["plan"]),
    other("gate", "approve", ["plan"]),
    other("gate", "init", ["approver"], ["--dir", f.gateInit, "--tool", "seo"]),
    other("harness", "job execute", ["job"]),
    other("harness", "report deliver", ["report", "url"]),
    other("harness", "receive", ["listen", "store"], ["--for", "1"]),
    other("harness", "history render", ["plan"]),
  ];
}

/** Every file under `root`, as text (a SQLite file read byte for byte: its rows are in it). */
export function filesUnder(root: string): Place[] {
  const out: Place[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (name === ".git") continue;
      const s = statSync(path);
      if (s.isDirectory()) walk(path);
      else if (s.isFile()) out.push({ door: "file", what: relative(root, path), text: readFileSync(path, "latin1") });
    }
  };
  walk(root);
  return out;
}

/** A site whose pages carry every canary in every encoding (page text an agent's crawl reads). */
function siteOf(dir: string, c: Canaries): string {
  const site = join(dir, "site");
  mkdirSync(site, { recursive: true });
  const all = Object.values(c).flatMap((s) => Object.values(ENCODINGS).map((e) => e(s)));
  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body><h1>Spades</h1><p>Our garden spades are forged from one piece of steel, with handles of ash that last a lifetime. ${body}</p><a href="/b.html">more</a><a href="/gone.html">gone</a></body></html>`;
  writeFileSync(join(site, "index.html"), page(`Harbour ${c.generic}`, all.slice(0, 16).join(" ")));
  writeFileSync(join(site, "b.html"), page(`More ${c.llm.toUpperCase()}`, all.slice(16).join(" ")));
  return site;
}

/** A real S3-compatible server for the harness's uploads; it checks the access key id, and the secret key is a canary. */
async function storageServer() {
  const s3 = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    allowMismatchedSignatures: true,
    directory: mkdtempSync(join(tmpdir(), "s3-")),
    configureBuckets: [{ name: "artifacts", configs: [] }],
  });
  const endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
  const client = new Bun.S3Client({
    endpoint,
    bucket: "artifacts",
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    region: "us-east-1",
  });
  return {
    env: {
      AGENT_ARTIFACT_ENDPOINT: endpoint,
      AGENT_ARTIFACT_BUCKET: "artifacts",
      AGENT_ARTIFACT_ACCESS_KEY_ID: "S3RVER",
    },
    /** Every object stored, as a place. */
    objects: async (): Promise<Place[]> => {
      const listed = await client.list({ prefix: "jobs/" });
      const keys = (listed.contents ?? []).map((o) => o.key);
      return Promise.all(
        keys.map(async (key) => ({
          door: "file" as const,
          what: `stored ${key}`,
          text: await client.file(key).text(),
        })),
      );
    },
    close: () => s3.close(),
  };
}

/** Runs the whole sweep; see the file's comment. */
export async function runSweep(): Promise<Sweep> {
  const c = makeCanaries();
  const root = mkdtempSync(join(tmpdir(), "canary-sweep-"));
  const places: Place[] = [];
  const commands = new Set<string>();
  const kb = knowledgeBase({ fill: (repo) => noteRepo(repo, c) });
  const llm = chatServer([{ status: 401, body: `refused ${payloads(c.llm).join(" ")}` }]);
  // Bounded, as a receiver must be, by far more than the sweep takes: it is stopped at the end.
  const receiver = await receiverProcess(["--for", "1800", "--run-dir", join(root, "receiver")], {
    AGENT_HARNESS_SECRET: c.harness,
  });
  const storage = await storageServer();
  const env = { ...canaryEnv(c), ...kb.env, ...storage.env, AGENT_LLM_BASE_URL: llm.url };
  const seoRun = join(root, "seo-run");
  const site = siteOf(root, c);
  const planDir = join(root, "brain-plan");
  // The fixtures: a seo run dir over the site, and a clean brain plan for the commands that read one.
  for (const stage of [["crawl", "--dir", site, "--base-url", "https://harbour.example"], ["extract"], ["audit"]])
    await collect(
      places,
      "command line",
      `seo ${stage[0]}`,
      run(binary("seo"), [...stage, "--run-dir", seoRun], { env }),
    );
  await run(binary("brain"), ["note", "create", "--repo", kb.repo, "--title", "Tide tables", "--run-dir", planDir], {
    env,
  });
  // Reviewed and applied: its ledger (ledger.sqlite beside it) is among the files swept.
  await collect(
    places,
    "command line",
    "gate review (a clean plan)",
    run(binary("gate"), ["review", "--plan", planDir, "--json"], { env }),
  );
  await collect(
    places,
    "command line",
    "brain apply (a clean plan)",
    run(binary("brain"), ["apply", "--plan", planDir, "--json"], { env }),
  );
  const f = {
    site,
    seoRun,
    repo: kb.repo,
    plan: planDir,
    job: join(root, "job.json"),
    gateInit: join(root, "gate-init"),
  };
  const list = targets(f);
  for (const t of list) commands.add(`${t.tool} ${t.words.join(" ")}`);
  await argvDoors(list, c, env, root, places);
  places.push(...(await mcpSweep(list, c, env, root)));
  await harnessDoors(c, env, root, f, receiver.url, places);
  receiver.stop();
  const done = await receiver.done;
  places.push({
    door: "receiver",
    what: "harness receive's answer",
    text: `${JSON.stringify(done.json)}\n${done.stderr}`,
  });
  llm.stop();
  places.push(...(await storage.objects()));
  await storage.close();
  places.push(...filesUnder(root));
  return { canaries: c, places, commands };
}

function noteRepo(repo: string, c: Canaries): void {
  mkdirSync(join(repo, "notes"), { recursive: true });
  const [a, b] = payloads(c.generic);
  writeFileSync(
    join(repo, "notes", "harbour-history.md"),
    `---\ntitle: Harbour history\ntags: [history]\n---\nFounded in 2009. ${a}\n`,
  );
  writeFileSync(join(repo, "notes", "tide-notes.md"), `---\ntitle: Tide notes ${c.generic}\n---\n${b}\n`);
}

async function collect(places: Place[], door: Place["door"], what: string, p: ReturnType<typeof run>): Promise<void> {
  const r = await p;
  places.push({ door, what, text: `${r.stdout}\n${r.stderr}` });
}

/** The command line (each free flag given a payload) and `--params -` (the same as one JSON document), two payloads each. */
async function argvDoors(list: Target[], c: Canaries, env: Record<string, string>, root: string, places: Place[]) {
  const secrets = [c.generic, c.llm, c.harness, c.storage];
  let n = 0;
  for (const t of list) {
    const runs: Promise<void>[] = [];
    for (const [k, payload] of payloads(secrets[n++ % secrets.length]!).entries()) {
      const runDir = join(root, "runs", `${t.tool}-${t.words.join("-")}-${k}`);
      const base = t.tool === "seo" ? t.base : [...t.base, "--run-dir", runDir];
      const flags = t.free.flatMap((name) => [`--${name}`, payload]);
      const what = `${t.tool} ${t.words.join(" ")} (${k ? "second" : "first"} four encodings)`;
      runs.push(
        collect(
          places,
          "command line",
          what,
          run(binary(t.tool), [...t.words, ...base, ...flags, "--json"], { env, timeoutMs: 30_000 }),
        ),
      );
      const doc = JSON.stringify(Object.fromEntries(t.free.map((name) => [name, payload])));
      runs.push(
        collect(
          places,
          "stdin params",
          what,
          run(binary(t.tool), [...t.words, ...base, "--params", "-", "--json"], { env, stdin: doc, timeoutMs: 30_000 }),
        ),
      );
    }
    // A tool's commands one after another (seo's share a run dir); two payloads and two doors at once.
    await Promise.all(runs);
  }
}

/** Harness job execute with steps given payloads, delivered to the receiver; a job handed the harness's own secret; report deliver and history render over what it wrote. */
async function harnessDoors(
  c: Canaries,
  env: Record<string, string>,
  root: string,
  f: { site: string; repo: string },
  receiver: string,
  places: Place[],
) {
  const [a, b] = payloads(c.generic);
  const steps = [
    { argv: ["seo", "crawl", "--dir", f.site, "--base-url", "https://harbour.example"] },
    { argv: ["seo", "extract"] },
    { argv: ["seo", "audit"], input: { url: a }, continue_on_error: true },
    { argv: ["seo", "page", "list"], input: { query: b }, continue_on_error: true },
    { argv: ["seo", "page", "list"] }, // the pages' titles, canaries and all, are in the report's data
    { argv: ["seo", "plan"], continue_on_error: true },
    { argv: ["seo", "synthesize"], continue_on_error: true },
    { argv: ["brain", "search", "--repo", f.repo], input: { query: a }, continue_on_error: true },
    { argv: ["brain", "note", "create", "--repo", f.repo], input: { title: "T", body: b }, continue_on_error: true },
  ];
  const job = join(root, "job.json");
  writeFileSync(
    job,
    JSON.stringify({ id: "sweep-job", run_dir: "job-run", steps, delivery: { url: `${receiver}/reports` } }),
  );
  const execute = (path: string) =>
    run(binary("harness"), ["job", "execute", "--job", path, "--json"], { env, cwd: root, timeoutMs: 120_000 });
  await collect(places, "harness job", "harness job execute (steps given payloads, delivered)", execute(job));
  const leaky = join(root, "leaky-job.json");
  writeFileSync(
    leaky,
    JSON.stringify({
      id: "leaky",
      run_dir: "leaky-run",
      steps: [{ argv: ["seo", "audit"], input: { url: payloads(c.harness)[0] } }],
    }),
  );
  await collect(places, "harness job", "harness job execute (a step handed the harness's secret)", execute(leaky));
  await collect(
    places,
    "receiver",
    "harness report deliver (the kept report, again)",
    run(
      binary("harness"),
      ["report", "deliver", "--report", join(root, "job-run"), "--url", `${receiver}/reports`, "--json"],
      { env, cwd: root },
    ),
  );
  await collect(
    places,
    "harness job",
    "harness history render --job",
    run(
      binary("harness"),
      ["history", "render", "--job", join(root, "job-run"), "--run-dir", join(root, "pages"), "--json"],
      { env, cwd: root },
    ),
  );
}
