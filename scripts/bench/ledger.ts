/**
 * Items applied per second through each ledger engine for a 1,000-item plan,
 * against executing the same edits with no ledger at all (in-process: read,
 * edit, write aside and rename, as the executor does).
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeWorkspaces, workspace, type Workspace } from "../../test/helpers/mutation.ts";
import { applyEdits, type Edit } from "../../tools/seo/lib/edits.ts";

const PAGES = 500; // two items each (lang, viewport): 1,000 items

async function planned(ledgerUrl?: string): Promise<Workspace> {
  const ws = await workspace({ pages: PAGES, maxPages: PAGES, ledgerUrl });
  for (const [tool, args] of [["seo", ["plan", "--run-dir", ws.run]], ["gate", ["review", "--plan", ws.run]]] as const) {
    const r = await (tool === "seo" ? ws.seo([...args]) : ws.gate([...args]));
    if (r.code !== 0) throw new Error(`${tool} ${args[0]} failed: ${r.stdout}`);
  }
  return ws;
}

async function timedApply(ws: Workspace): Promise<{ ms: number; items: number }> {
  const t = performance.now();
  const r = await ws.seo(["apply", "--plan", ws.run]);
  const ms = performance.now() - t;
  if (r.code !== 0) throw new Error(`apply failed: ${r.stdout.slice(0, 300)}`);
  return { ms, items: r.json.data.executed };
}

function noLedger(ws: Workspace): { ms: number; items: number } {
  const plan = JSON.parse(readFileSync(join(ws.run, "plan.json"), "utf8"));
  const t = performance.now();
  for (const it of plan.items) {
    const path = join(ws.site, it.params.file);
    const next = applyEdits(readFileSync(path, "utf8"), it.params.edits as Edit[]);
    if (typeof next !== "string") throw new Error("edit misfit");
    writeFileSync(`${path}.tmp`, next);
    renameSync(`${path}.tmp`, path);
  }
  return { ms: performance.now() - t, items: plan.items.length };
}

export async function benchLedger(): Promise<void> {
  const pg = Bun.spawnSync(["bash", join(import.meta.dir, "..", "postgres.sh")], { stdout: "pipe", stderr: "inherit" });
  const pgUrl = pg.exitCode === 0 ? pg.stdout.toString().trim() : null;
  const bare = noLedger(await planned());
  const rows: [string, { ms: number; items: number }][] = [["no ledger (in-process edits)", bare], ["sqlite ledger (dist/seo apply)", await timedApply(await planned())]];
  if (pgUrl) rows.push(["postgres ledger (dist/seo apply)", await timedApply(await planned(pgUrl))]);
  console.log(`\n## apply: a ${bare.items}-item plan (one run each; the apply figures include process start-up and plan checks)`);
  for (const [name, r] of rows) {
    const overhead = r === bare ? "" : `  ledger overhead ${((r.ms - bare.ms) / r.items).toFixed(2)} ms/item`;
    console.log(`  ${name.padEnd(36)} ${r.ms.toFixed(0).padStart(6)} ms  ${(r.items / (r.ms / 1000)).toFixed(0).padStart(6)} items/s${overhead}`);
  }
  if (!pgUrl) console.log("  postgres ledger: skipped (scripts/postgres.sh could not start a server)");
  removeWorkspaces();
}

if (import.meta.main) await benchLedger();
