/** A real PostgreSQL server on 127.0.0.1 for the ledger tests: scripts/postgres.sh starts it (once) and prints its URL. */
import { join } from "node:path";
import { root } from "./bin.ts";
import { machineEnv } from "./machine-tmp.ts";

let url: string | null = null;

export function postgresUrl(): string {
  if (url) return url;
  const p = Bun.spawnSync(["bash", join(root, "scripts", "postgres.sh")], {
    stdout: "pipe",
    stderr: "pipe",
    env: machineEnv(),
  });
  if (p.exitCode !== 0) throw new Error(`scripts/postgres.sh failed: ${p.stderr.toString()}`);
  url = p.stdout.toString().trim();
  return url;
}
