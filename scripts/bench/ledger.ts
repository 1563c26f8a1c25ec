/**
 * Items applied per second through each ledger engine for a 1,000-item plan,
 * against executing the same edits with no ledger at all (in-process: read,
 * edit, write aside and rename, as the executor does). Each round runs every
 * case once, in turn, on fresh copies; the figures are medians of --rounds
 * (3 when run alone, at most 5), so one slow moment of a shared disk does not decide them. The
 * same again on a tmpfs where there is one: the edits' own writes dominate
 * the no-ledger baseline on a disk, and vary with it.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeWorkspaces, workspace, type Workspace } from "../../test/helpers/mutation.ts";
import { applyEdits, type Edit } from "../../tools/seo/lib/edits.ts";
import { median, roundsArg } from "./measure.ts";

const PAGES = 500; // two items each (lang, viewport): 1,000 items

async function planned(ledgerUrl?: string): Promise<Workspace> {
  const ws = await workspace({ pages: PAGES, maxPages: PAGES, ledgerUrl });
  for (const [tool, args] of [
    ["seo", ["plan", "--run-dir", ws.run]],
    ["gate", ["review", "--plan", ws.run]],
  ] as const) {
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

/** Where the workspaces go: the machine's temp folder (its disk), and a tmpfs when there is one, which takes the disk out of the figures. */
function storages(): [string, string][] {
  const disk = process.env.TMPDIR || "/tmp";
  const mounts = existsSync("/proc/mounts") ? readFileSync("/proc/mounts", "utf8") : "";
  return [
    [`on ${disk}`, disk],
    ...(mounts.includes(" /dev/shm tmpfs ") && disk !== "/dev/shm"
      ? [["on /dev/shm (tmpfs)", "/dev/shm"] as [string, string]]
      : []),
  ];
}

export async function benchLedger(rounds = Math.min(5, roundsArg(3))): Promise<void> {
  const pg = Bun.spawnSync(["bash", join(import.meta.dir, "..", "postgres.sh")], { stdout: "pipe", stderr: "inherit" });
  const pgUrl = pg.exitCode === 0 ? pg.stdout.toString().trim() : null;
  const tmp = process.env.TMPDIR;
  for (const [where, dir] of storages()) {
    process.env.TMPDIR = dir;
    await benchIn(where, rounds, pgUrl);
  }
  if (tmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmp;
  if (!pgUrl) console.log("  postgres ledger: skipped (scripts/postgres.sh could not start a server)");
}

async function benchIn(where: string, rounds: number, pgUrl: string | null): Promise<void> {
  const cases: [string, () => Promise<{ ms: number; items: number }>][] = [
    ["no ledger (in-process edits)", async () => noLedger(await planned())],
    ["sqlite ledger (dist/seo apply)", async () => timedApply(await planned())],
    ...(pgUrl
      ? [
          ["postgres ledger (dist/seo apply)", async () => timedApply(await planned(pgUrl))] as [
            string,
            () => Promise<{ ms: number; items: number }>,
          ],
        ]
      : []),
  ];
  const times = cases.map(() => [] as number[]);
  let items = 0;
  for (let r = 0; r < rounds; r++)
    for (const [i, [, run]] of cases.entries()) {
      const t = await run();
      times[i]!.push(t.ms);
      items = t.items;
      removeWorkspaces();
    }
  console.log(
    `\n## apply: a ${items}-item plan, ${where} (median of ${rounds}; the apply figures include process start-up and plan checks)`,
  );
  const bare = median(times[0]!);
  for (const [i, [name]] of cases.entries()) {
    const ms = median(times[i]!);
    const overhead = i === 0 ? "" : `  ledger overhead ${((ms - bare) / items).toFixed(2)} ms/item`;
    console.log(
      `  ${name.padEnd(36)} ${ms.toFixed(0).padStart(6)} ms  ${(items / (ms / 1000)).toFixed(0).padStart(6)} items/s${overhead}   (runs: ${times[i]!.map((t) => t.toFixed(0)).join(", ")} ms)`,
    );
  }
}

if (import.meta.main) await benchLedger();
