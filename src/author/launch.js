#!/usr/bin/env node
// agent-cli-kit's command under plain Node: the kit and the verifier run on Bun, which the package brings
// (the `bun` dependency); this finds that Bun and hands it the command, its streams, signals and exit code.
import { spawn } from "node:child_process";
import { closeSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** A real executable, not the placeholder text npm leaves when an install script did not run. */
function isExecutable(path) {
  try {
    const fd = openSync(path, "r");
    const head = Buffer.alloc(4);
    readSync(fd, head, 0, 4, 0);
    closeSync(fd);
    return (
      head.toString("latin1") === "\x7fELF" ||
      [0xcffaedfe, 0xfeedfacf].includes(head.readUInt32BE(0)) ||
      head.toString("latin1", 0, 2) === "MZ"
    );
  } catch {
    return false;
  }
}

function findBun() {
  if (process.env.AGENT_CLI_KIT_BUN) return process.env.AGENT_CLI_KIT_BUN;
  const candidates = [];
  try {
    candidates.push(join(dirname(require.resolve("bun/package.json")), "bin", "bun.exe"));
  } catch {}
  const arch = process.arch === "arm64" ? "aarch64" : process.arch;
  for (const suffix of ["", "-musl", "-baseline"])
    try {
      candidates.push(
        join(dirname(require.resolve(`@oven/bun-${process.platform}-${arch}${suffix}/package.json`)), "bin", "bun"),
      );
    } catch {}
  return candidates.find(isExecutable) ?? "bun";
}

// Bun keeps a transpiler cache in HOME; a tool writes nothing there (contract §10), so it is off unless asked for.
const env = { BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0", ...process.env };
const child = spawn(findBun(), [join(here, "main.ts"), ...process.argv.slice(2)], { stdio: "inherit", env });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("error", (e) => {
  const envelope = {
    ok: false,
    contract_version: 0,
    tool: "agent-cli-kit",
    command: "",
    data: null,
    error: {
      code: "INTERNAL",
      message: `Bun could not be started: ${e.message}`,
      retryable: false,
      hint: "reinstall agent-cli-kit without --ignore-scripts (it brings Bun), or set AGENT_CLI_KIT_BUN to a bun binary",
    },
    meta: {
      schema: null,
      duration_ms: 0,
      cost_usd: 0,
      llm_tokens: 0,
      pagination: null,
      truncated: false,
      truncation_hint: null,
      run_dir: null,
    },
  };
  process.stdout.write(`${JSON.stringify(envelope)}\n`);
  process.exitCode = 1;
});
child.on("exit", (code, signal) => {
  process.exitCode = code ?? (signal ? 128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[signal] ?? 0) : 1);
});
