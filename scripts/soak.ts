/**
 * Exactly-once under abuse, in loops that print their counts (not part of
 * `npm test`, which stays fast):
 *
 *   crash        SIGKILL at a random moment during apply of a 200-item seo plan, then re-apply to
 *                completion: the site must equal one clean apply byte for byte, with no extra file,
 *                and the action log must hold one row per key, at most one of them executed
 *   brain-crash  the same for brain: a 30-item delete plan on a real git repository
 *   race         4 applies racing on a fresh ledger: every item executed once, no run fails
 *   long         a 70 s execution under a 2 s lease with a second applier started meanwhile:
 *                no item executed twice (heartbeat), and with the heartbeat off the fence alone
 *                stops the stale owner
 *   html         generated page × seo edit cases judged by the gate (tools/seo/lib/html-fuzz.ts):
 *                no approved edit changes what a browser runs
 *   loops        the suite's own loops at their full rounds (AGENT_KIT_SOAK=1, test/helpers/rounds.ts):
 *                signals mid-apply and mid-call, parallel MCP saves and applies, racing inits
 *
 *   bun scripts/soak.ts [section…] [--runs N] [--race-runs N] [--brain-runs N] [--long-ms MS] [--html-cases N] [--seed S]
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, binary, testBinary } from "../test/helpers/bin.ts";
import {
  finishApply,
  removeWorkspaces,
  snapshot,
  spawnApply,
  workspace,
  type Workspace,
} from "../test/helpers/mutation.ts";
import { knowledgeBase, type KnowledgeBase } from "../test/helpers/notes-repo.ts";
import { postgresUrl } from "../test/helpers/postgres.ts";
import { runHtmlFuzz } from "../tools/seo/lib/html-fuzz.ts";
import { testFiles } from "./test-files.ts";

const ROOT = join(import.meta.dir, "..");

const args = process.argv.slice(2);
const opt = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const sections = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
const wanted = (s: string) => sections.length === 0 || sections.includes(s);
const RUNS = opt("runs", 50);
const RACE_RUNS = opt("race-runs", 100);
const BRAIN_RUNS = opt("brain-runs", 20);
const LONG_MS = opt("long-ms", 70_000);
const HTML_CASES = opt("html-cases", 10_000);
let seed = opt("seed", Date.now() % 1_000_000);
console.log(`soak: seed ${seed}`);
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

type Engine = "sqlite" | "postgres";
const ENGINES: Engine[] = ["sqlite", "postgres"];

/** A ledger nobody has used: a new SQLite file, or a new PostgreSQL database. */
async function freshLedger(engine: Engine, dir: string, n: string): Promise<string> {
  if (engine === "sqlite") return join(dir, `ledger-${n}.sqlite`);
  const base = postgresUrl();
  const name = `soak_${process.pid}_${n.replace(/\W/g, "_")}`;
  const sql = new Bun.SQL(base);
  await sql.unsafe(`CREATE DATABASE ${name}`);
  await sql.close();
  return base.replace(/\/[^/]*$/, `/${name}`);
}

async function dropDatabases(): Promise<void> {
  const sql = new Bun.SQL(postgresUrl());
  const rows = await sql`SELECT datname FROM pg_database WHERE datname LIKE ${`soak_${process.pid}_%`}`;
  for (const r of rows) await sql.unsafe(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
  await sql.close();
}

function differences(a: Record<string, string>, b: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys]
    .filter((k) => a[k] !== b[k])
    .map((k) => (k in a ? (k in b ? `${k} differs` : `${k} missing`) : `${k} extra`));
}

type Exit = Awaited<ReturnType<typeof finishApply>>;

/** Applies until the plan is done (exit 0), a few tries at most. */
async function applyToCompletion(bin: string, plan: string, env: Record<string, string>): Promise<Exit> {
  let last: Exit = { code: -1, json: null };
  for (let i = 0; i < 4; i++) {
    last = await finishApply(spawnApply(bin, plan, env, ["--wait"]));
    if (last.code === 0) return last;
  }
  return last;
}

async function actionLog(bin: string, plan: string, env: Record<string, string>): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const p = Bun.spawn(
      [bin, "action", "list", "--plan", plan, "--json", "--limit", "1000", ...(cursor ? ["--cursor", cursor] : [])],
      { env: baseEnv(env), stdout: "pipe" },
    );
    const out = JSON.parse(await new Response(p.stdout).text());
    rows.push(...out.data.items);
    cursor = out.meta.pagination?.next_cursor ?? null;
  } while (cursor);
  return rows;
}

/** One row per key, at most one of them executed. */
function logProblems(rows: any[], items: number): string[] {
  const byKey = Map.groupBy(rows, (r) => r.idempotency_key);
  const problems: string[] = [];
  if (byKey.size !== items) problems.push(`${byKey.size} keys in the log, ${items} items`);
  for (const [key, rs] of byKey) {
    if (rs.length !== 1) problems.push(`${rs.length} log rows for ${key.slice(7, 19)}`);
    if (rs.filter((r) => r.executed).length > 1) problems.push(`double execution of ${key.slice(7, 19)}`);
  }
  return problems;
}

// ————————————————————————————————————————— seo

interface SeoSetup {
  ws: Workspace;
  pristine: string;
  expected: Record<string, string>;
  items: number;
  applyMs: number;
}

/** A planned, approved workspace, a pristine copy of its site, and what one clean apply leaves. */
async function seoSetup(pages: number): Promise<SeoSetup> {
  const ws = await workspace({ pages, maxPages: pages });
  for (const r of [await ws.seo(["plan", "--run-dir", ws.run]), await ws.gate(["review", "--plan", ws.run])])
    if (r.code !== 0) throw new Error(r.stdout);
  const pristine = join(ws.dir, "pristine");
  cpSync(ws.site, pristine, { recursive: true });
  const env = { ...ws.env, AGENT_LEDGER_URL: join(ws.dir, "clean.sqlite") };
  const t = performance.now();
  const clean = await finishApply(spawnApply(binary("seo"), ws.run, env));
  const applyMs = performance.now() - t;
  if (clean.code !== 0) throw new Error(`clean apply failed: ${JSON.stringify(clean.json?.error)}`);
  const expected = snapshot(ws.site);
  // `total`, not the items shown: apply answers a page of its items (50), and the plan has more.
  return { ws, pristine, expected, items: clean.json.data.total, applyMs };
}

function restore(s: SeoSetup): void {
  rmSync(s.ws.site, { recursive: true, force: true });
  cpSync(s.pristine, s.ws.site, { recursive: true });
}

async function seoCrash(engine: Engine, s: SeoSetup): Promise<void> {
  let killedMidway = 0;
  const failures: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    restore(s);
    const env = { ...s.ws.env, AGENT_LEDGER_URL: await freshLedger(engine, s.ws.dir, `crash-${engine}-${i}`) };
    const p = spawnApply(binary("seo"), s.ws.run, env);
    await Bun.sleep((0.05 + 0.85 * random()) * s.applyMs);
    p.kill("SIGKILL");
    const first = await finishApply(p);
    if (first.code === 137 || first.code === -1 || first.json === null) killedMidway++;
    const done = await applyToCompletion(binary("seo"), s.ws.run, env);
    const problems = [
      ...(done.code === 0 ? [] : [`re-apply exit ${done.code}: ${JSON.stringify(done.json?.error).slice(0, 200)}`]),
      ...differences(snapshot(s.ws.site), s.expected),
      ...logProblems(await actionLog(binary("seo"), s.ws.run, env), s.items),
    ];
    if (problems.length) failures.push(`run ${i}: ${problems.slice(0, 4).join("; ")}`);
  }
  console.log(
    `crash ${engine}: ${RUNS} runs of a ${s.items}-item plan, ${killedMidway} killed mid-apply; failures: ${failures.length} (double effects, tree differences, extra files, log rows)`,
  );
  for (const f of failures.slice(0, 10)) console.log(`  ${f}`);
  if (failures.length) process.exitCode = 1;
}

async function seoRace(engine: Engine, s: SeoSetup): Promise<void> {
  const failures: string[] = [];
  for (let i = 0; i < RACE_RUNS; i++) {
    restore(s);
    const env = { ...s.ws.env, AGENT_LEDGER_URL: await freshLedger(engine, s.ws.dir, `race-${engine}-${i}`) };
    const racers = [0, 1, 2, 3].map((k) => spawnApply(binary("seo"), s.ws.run, env, k % 2 === 0 ? ["--wait"] : []));
    const results = await Promise.all(racers.map(finishApply));
    const executed = results.reduce((n, r) => n + ((r.json?.data ?? r.json?.error?.detail)?.executed ?? NaN), 0);
    const problems: string[] = [];
    for (const [k, r] of results.entries()) {
      const ok = r.code === 0 || (r.code === 4 && r.json?.error?.code === "IN_PROGRESS" && k % 2 === 1);
      if (!ok) problems.push(`racer ${k} exit ${r.code}: ${JSON.stringify(r.json?.error ?? r.json).slice(0, 160)}`);
    }
    if (executed !== s.items) problems.push(`executed ${executed} of ${s.items}`);
    problems.push(
      ...differences(snapshot(s.ws.site), s.expected),
      ...logProblems(await actionLog(binary("seo"), s.ws.run, env), s.items),
    );
    if (problems.length) failures.push(`run ${i}: ${problems.slice(0, 3).join("; ")}`);
  }
  console.log(
    `race ${engine}: ${RACE_RUNS} runs of 4 applies on a fresh ledger (${s.items} items); failures: ${failures.length}`,
  );
  for (const f of failures.slice(0, 10)) console.log(`  ${f}`);
  if (failures.length) process.exitCode = 1;
}

// ————————————————————————————————————————— brain

async function brainPlanned(notes: number, plan: (kb: KnowledgeBase) => string[]): Promise<KnowledgeBase> {
  const kb = knowledgeBase({
    maxItems: 1000,
    fill: (repo) => {
      mkdirSync(join(repo, "notes"), { recursive: true });
      for (let i = 0; i < notes; i++)
        writeFileSync(
          join(repo, "notes", `n${i}.md`),
          `---\nid: n${i}\ntitle: Note ${i}\ntags: [soak]\n---\n\nBody of note ${i}.\n`,
        );
    },
  });
  const env = kb.env;
  for (const [bin, a] of [
    ["brain", [...plan(kb), "--run-dir", kb.run]],
    ["gate", ["review", "--plan", kb.run]],
  ] as const) {
    const p = Bun.spawnSync([binary(bin), ...a, "--json"], { env: baseEnv(env), stdout: "pipe" });
    if (p.exitCode !== 0) throw new Error(`${bin} ${a[0]}: ${p.stdout}`);
  }
  return kb;
}

const brainProblems = (kb: KnowledgeBase, keys: string[]): string[] => {
  const problems: string[] = [];
  const status = kb.git("status", "--porcelain", "--untracked-files=all").trim();
  if (status) problems.push(`work tree not clean: ${status.split("\n").slice(0, 2).join(", ")}`);
  const trailers = kb
    .git("log", "--format=%(trailers:key=Idempotency-Key,valueonly)")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const counts = Map.groupBy(trailers, (t) => t);
  for (const k of keys)
    if ((counts.get(k)?.length ?? 0) !== 1)
      problems.push(`${counts.get(k)?.length ?? 0} commits for ${k.slice(7, 19)}`);
  return problems;
};

async function brainCrash(engine: Engine): Promise<void> {
  const NOTES = 30;
  const failures: string[] = [];
  let killedMidway = 0;
  let applyMs = 0;
  for (let i = 0; i < BRAIN_RUNS; i++) {
    const kb = await brainPlanned(NOTES, () => [
      "note",
      "delete",
      ...Array.from({ length: NOTES }, (_, k) => ["--id", `n${k}`]).flat(),
    ]);
    const keys = JSON.parse(readFileSync(join(kb.run, "plan.json"), "utf8")).items.map(
      (it: any) => it.idempotency_key,
    ) as string[];
    const env = { ...kb.env, AGENT_LEDGER_URL: await freshLedger(engine, kb.dir, `brain-${engine}-${i}`) };
    if (i === 0) {
      // Measure one clean apply on a twin, through this engine, to aim the kills.
      const twin = await brainPlanned(NOTES, () => [
        "note",
        "delete",
        ...Array.from({ length: NOTES }, (_, k) => ["--id", `n${k}`]).flat(),
      ]);
      const t = performance.now();
      await finishApply(
        spawnApply(binary("brain"), twin.run, {
          ...twin.env,
          AGENT_LEDGER_URL: await freshLedger(engine, twin.dir, `brain-twin-${engine}`),
        }),
      );
      applyMs = performance.now() - t;
      rmSync(twin.dir, { recursive: true, force: true });
    }
    const p = spawnApply(binary("brain"), kb.run, env);
    await Bun.sleep((0.05 + 0.85 * random()) * applyMs);
    p.kill("SIGKILL");
    const first = await finishApply(p);
    if (first.code === 137 || first.json === null) killedMidway++;
    const done = await applyToCompletion(binary("brain"), kb.run, env);
    const problems = [
      ...(done.code === 0 ? [] : [`re-apply exit ${done.code}: ${JSON.stringify(done.json?.error).slice(0, 200)}`]),
      ...brainProblems(kb, keys),
      ...(kb.git("ls-files", "notes").trim() ? ["notes left undeleted"] : []),
      ...logProblems(await actionLog(binary("brain"), kb.run, env), keys.length),
    ];
    if (problems.length) failures.push(`run ${i}: ${problems.slice(0, 4).join("; ")}`);
    rmSync(kb.dir, { recursive: true, force: true });
  }
  console.log(
    `brain-crash ${engine}: ${BRAIN_RUNS} runs of a 30-item plan, ${killedMidway} killed mid-apply; failures: ${failures.length} (stuck trees, double commits, log rows)`,
  );
  for (const f of failures.slice(0, 10)) console.log(`  ${f}`);
  if (failures.length) process.exitCode = 1;
}

// ————————————————————————————————————————— long executions

/** Applier A's first execution takes LONG_MS under a 2 s lease; B starts 5 s in. Nothing may execute twice. */
async function longExecution(tool: "seo" | "brain", engine: Engine, heartbeat: boolean): Promise<string> {
  let plan: string;
  let env: Record<string, string>;
  let items: number;
  let check: () => string[];
  let cleanup: () => void;
  if (tool === "seo") {
    const ws = await workspace({ pages: 3, maxPages: 3 });
    for (const r of [await ws.seo(["plan", "--run-dir", ws.run]), await ws.gate(["review", "--plan", ws.run])])
      if (r.code !== 0) throw new Error(r.stdout);
    plan = ws.run;
    env = { ...ws.env, AGENT_LEDGER_URL: await freshLedger(engine, ws.dir, `long-seo-${engine}-${heartbeat}`) };
    items = JSON.parse(readFileSync(join(ws.run, "plan.json"), "utf8")).items.length;
    check = () => [];
    cleanup = () => {};
  } else {
    const kb = await brainPlanned(3, () => ["note", "update", "--id", "n0", "--title", "Updated once"]);
    plan = kb.run;
    env = { ...kb.env, AGENT_LEDGER_URL: await freshLedger(engine, kb.dir, `long-brain-${engine}-${heartbeat}`) };
    const keys = JSON.parse(readFileSync(join(kb.run, "plan.json"), "utf8")).items.map((it: any) => it.idempotency_key);
    items = keys.length;
    check = () => brainProblems(kb, keys);
    cleanup = () => rmSync(kb.dir, { recursive: true, force: true });
  }
  const lease = { AGENT_LEDGER_LEASE_MS: "2000" };
  const a = spawnApply(testBinary(tool), plan, {
    ...env,
    ...lease,
    AGENT_KIT_FAILPOINT: `delay-first-execute:${LONG_MS}${heartbeat ? "" : ",no-heartbeat"}`,
  });
  await Bun.sleep(5000);
  const b = await finishApply(spawnApply(binary(tool), plan, { ...env, ...lease }));
  const ra = await finishApply(a);
  const rows = await actionLog(binary(tool), plan, env);
  const problems = [...logProblems(rows, items), ...check()];
  cleanup();
  const outcome = (r: Exit) =>
    `exit ${r.code} ${r.json?.error?.code ?? "ok"} executed ${(r.json?.data ?? r.json?.error?.detail)?.executed ?? "?"}`;
  return `long ${tool} ${engine} ${heartbeat ? "heartbeat" : "no heartbeat (fence only)"}: A ${outcome(ra)}; B ${outcome(b)}; double executions: ${problems.filter((p) => /double|commits/.test(p)).length}${problems.length ? ` — ${problems.join("; ")}` : ""}`;
}

// ————————————————————————————————————————— html

/** The gate's judgement of generated page × edit cases: each approved edit must leave what a browser runs as it was. */
function htmlFuzz(): void {
  const started = performance.now();
  const run = runHtmlFuzz(HTML_CASES, seed);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `html: ${run.cases} page × edit cases, ${run.approved} approved by the gate, ${run.escapes.length} escapes (${seconds} s)`,
  );
  for (const c of run.escapes.slice(0, 3))
    console.log(`  escape: ${c.action} ${JSON.stringify(c.edits)} on ${JSON.stringify(c.page)}`);
  if (run.escapes.length > 0) process.exitCode = 1;
}

/** The suite's looping tests (each file that counts its rounds with test/helpers/rounds.ts), every loop at its soak rounds. */
function suiteLoops(): void {
  const loops = testFiles().filter((f) => readFileSync(join(ROOT, f), "utf8").includes("helpers/rounds.ts"));
  const r = Bun.spawnSync([process.execPath, "test", "--timeout", "1800000", ...loops.map((f) => `./${f}`)], {
    cwd: ROOT,
    env: { ...process.env, AGENT_KIT_SOAK: "1" },
    stdout: "inherit",
    stderr: "inherit",
  });
  if (r.exitCode !== 0) process.exitCode = 1;
}

// ————————————————————————————————————————— main

try {
  if (wanted("loops")) suiteLoops();
  if (wanted("html")) htmlFuzz();
  if (wanted("crash") || wanted("race")) {
    for (const engine of ENGINES) {
      if (wanted("crash")) await seoCrash(engine, await seoSetup(100));
      if (wanted("race")) await seoRace(engine, await seoSetup(20));
    }
  }
  if (wanted("brain-crash")) for (const engine of ENGINES) await brainCrash(engine);
  if (wanted("long")) {
    const lines = await Promise.all(
      ENGINES.flatMap((e) =>
        (["seo", "brain"] as const).flatMap((t) => [true, false].map((hb) => longExecution(t, e, hb))),
      ),
    );
    for (const l of lines) console.log(l);
    if (lines.some((l) => !/double executions: 0$/.test(l))) process.exitCode = 1;
  }
} finally {
  removeWorkspaces();
  await dropDatabases();
}
