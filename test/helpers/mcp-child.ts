/**
 * A compiled tool's MCP server as a child this test holds, driven by the
 * official SDK's client: the SDK's stdio transport hides the process, and
 * the signal tests need its pid, its exit code and its children.
 */
import { readdirSync, readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Subprocess } from "bun";
import { baseEnv, binaryFor } from "./bin.ts";

class ChildTransport implements Transport {
  onmessage?: (m: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (e: Error) => void;
  readonly #buffer = new ReadBuffer();
  constructor(readonly proc: Subprocess<"pipe", "pipe", "pipe">) {}

  async start(): Promise<void> {
    void (async () => {
      for await (const chunk of this.proc.stdout) {
        this.#buffer.append(Buffer.from(chunk));
        for (let m = this.#buffer.readMessage(); m; m = this.#buffer.readMessage()) this.onmessage?.(m);
      }
      this.onclose?.();
    })().catch((e) => this.onerror?.(e));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.proc.stdin.write(serializeMessage(message));
    await this.proc.stdin.flush();
  }

  async close(): Promise<void> {
    try {
      this.proc.stdin.end();
    } catch {
      // Already gone.
    }
  }
}

export interface ServerChild {
  client: Client;
  proc: Subprocess<"pipe", "pipe", "pipe">;
  stderr: Promise<string>;
}

export async function serveChild(tool: string, args: string[], env: Record<string, string>): Promise<ServerChild> {
  const proc = Bun.spawn([binaryFor(tool, env), "--mcp", ...args], {
    env: baseEnv(env),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = new Response(proc.stderr).text();
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new ChildTransport(proc));
  return { client, proc, stderr };
}

/** The processes whose parent is `pid`, now. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(d));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** Whether `pid` is a live process (a zombie waiting to be reaped is not). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Waits until `check` holds, polling; a hang is a failure, at `capMs`. */
export async function until(check: () => boolean, capMs = 30_000): Promise<void> {
  const end = Date.now() + capMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("the condition never held");
    await Bun.sleep(10);
  }
}
