/** Headless Chromium (Debian's package), installed by the test setup when absent, as .ci/run does. */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CHROMIUM = "/usr/bin/chromium";
// This machine's network is closed: without these Chromium spends its start-up on connections that are refused.
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--hide-scrollbars",
];

export function chromium(): string {
  if (!existsSync(CHROMIUM)) {
    const p = Bun.spawnSync(["apt-get", "install", "-y", "-q", "chromium"], {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      stdout: "ignore",
      stderr: "pipe",
    });
    if (!existsSync(CHROMIUM))
      throw new Error(`Chromium is not installed and apt-get could not install it: ${p.stderr.toString().slice(-400)}`);
  }
  return CHROMIUM;
}

/** Chromium run once on `url` with `args`: what it printed on stdout. */
export function headless(url: string, args: readonly string[]): string {
  const profile = mkdtempSync(join(tmpdir(), "chromium-"));
  try {
    const p = Bun.spawnSync([chromium(), ...FLAGS, `--user-data-dir=${profile}`, ...args, url], {
      stdout: "pipe",
      stderr: "pipe",
      timeout: 60_000,
    });
    if (p.exitCode !== 0) throw new Error(`chromium exited ${p.exitCode}: ${p.stderr.toString().slice(-400)}`);
    return p.stdout.toString();
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
