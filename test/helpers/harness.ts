/** What the harness tests share: a real S3-compatible server, a proxy that fails on purpose, a receiver process. */
import { Database } from "bun:sqlite";
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { baseEnv, binary, dist } from "./bin.ts";

export const S3_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/** s3rver on 127.0.0.1 with one bucket, in a fresh folder. */
export async function s3Server(
  bucket: string,
): Promise<{ endpoint: string; client: Bun.S3Client; close(): Promise<void> }> {
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: mkdtempSync(join(tmpdir(), "s3-")),
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    client: new Bun.S3Client({ endpoint, bucket, ...S3_CREDENTIALS, region: "us-east-1" }),
    close: () => server.close(),
  };
}

export interface Proxy {
  url: string;
  /** Every request that came in, in order: method, path, and the answer it got. */
  seen: { method: string; path: string; status: number }[];
  /** The last request forwarded: to replay it byte for byte. */
  last: { headers: Record<string, string>; body: Uint8Array } | null;
  stop(): void;
}

/** Forwards to `target`, answering 500 instead to the first `failures` requests that match `when`. */
export function failingProxy(
  target: string,
  failures: number,
  when: (method: string, path: string) => boolean = () => true,
): Proxy {
  let left = failures;
  const proxy: Proxy = {
    url: "",
    seen: [],
    last: null,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = new Uint8Array(await req.arrayBuffer());
      if (left > 0 && when(req.method, url.pathname)) {
        left--;
        proxy.seen.push({ method: req.method, path: url.pathname, status: 500 });
        return new Response("<Error><Code>InternalError</Code><Message>failing on purpose</Message></Error>", {
          status: 500,
          headers: { "content-type": "application/xml" },
        });
      }
      const headers = Object.fromEntries(req.headers.entries());
      if (req.method === "POST") proxy.last = { headers, body };
      const res = await fetch(`${target}${url.pathname}${url.search}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
      });
      proxy.seen.push({ method: req.method, path: url.pathname, status: res.status });
      return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
    },
  });
  proxy.url = `http://127.0.0.1:${server.port}`;
  return proxy;
}

/** `harness receive` as a process: resolves its URL once it says it is listening. */
export async function receiverProcess(
  args: string[],
  env: Record<string, string>,
): Promise<{
  url: string;
  done: Promise<{ code: number; json: any; stderr: string }>;
  stop(signal?: "SIGTERM" | "SIGINT"): void;
}> {
  const p = Bun.spawn([binary("harness"), "receive", "--listen", "127.0.0.1:0", "--json", ...args], {
    env: baseEnv(env),
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const reader = p.stderr.getReader();
  let stderr = "";
  let url: string | null = null;
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`harness receive did not start: ${stderr}${await new Response(p.stdout).text()}`);
    stderr += new TextDecoder().decode(value);
    url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1] ?? null;
  }
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return stderr;
      stderr += new TextDecoder().decode(value);
    }
  })();
  const done = (async () => {
    const [out, code, err] = await Promise.all([new Response(p.stdout).text(), p.exited, rest]);
    return { code, json: out ? JSON.parse(out) : null, stderr: err };
  })();
  return { url, done, stop: (signal = "SIGTERM") => p.kill(signal) };
}

/**
 * A harness beside tools that misbehave on purpose (no fleet tool hangs, forks
 * a TERM-proof child or lies about its cost): a copy of the compiled harness in
 * a folder whose `seo` is a script, beside the fleet's tool list (tools.json)
 * as the build lays it out: the harness's steps are the tools it names. Each of its long-lived processes carries
 * `marker` in its argv, so a test can count what is left.
 */
export function misbehavingFleet(dir: string, marker: string): string {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  try {
    linkSync(binary("harness"), join(bin, "harness"));
  } catch {
    copyFileSync(binary("harness"), join(bin, "harness"));
  }
  const script = `#!/bin/bash
# seo <behaviour> [arg] --json --no-input --run-dir DIR
case "$1" in
  hang) exec -a "sleeper-${marker}" sleep 3600 ;;
  stubborn)
    # A child that ignores TERM (ignored stays ignored across exec), and this step ignores it too.
    (trap '' TERM; exec -a "stubborn-${marker}" sleep 3600) &
    trap '' TERM
    exec -a "sleeper-${marker}" sleep 3600 ;;
  leave)
    # Prints the envelope in file $2 and exits 0 at once, leaving a TERM-proof child that holds stdout open.
    (trap '' TERM; exec -a "stubborn-${marker}" sleep 3600) &
    cat "$2" ;;
  print) cat "$2" ;;
  *) echo "no behaviour $1" >&2; exit 2 ;;
esac
`;
  writeFileSync(join(bin, "seo"), script, { mode: 0o755 });
  copyFileSync(join(dist, "tools.json"), join(bin, "tools.json"));
  return join(bin, "harness");
}

/** Processes still running (zombies are done) whose argv holds `marker`. */
export function leftovers(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (cmdline.includes(marker) && !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)))
        found.push(`${pid} ${cmdline}`);
    } catch {}
  }
  return found;
}

/** A proxy in front of `target` that, while `down()` says so, answers `status` itself (with `headers`); it notes when each request arrived. */
export function switchProxy(
  target: string,
  down: () => { status: number; headers?: Record<string, string> } | null,
): Proxy & { arrivals: { at: number; status: number }[] } {
  const arrivals: { at: number; status: number }[] = [];
  const proxy = {
    url: "",
    seen: [] as Proxy["seen"],
    last: null as Proxy["last"],
    arrivals,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const at = Date.now();
      const url = new URL(req.url);
      const body = new Uint8Array(await req.arrayBuffer());
      const answer = down();
      if (answer) {
        arrivals.push({ at, status: answer.status });
        proxy.seen.push({ method: req.method, path: url.pathname, status: answer.status });
        return new Response("<html><body>down on purpose</body></html>", {
          status: answer.status,
          headers: { "content-type": "text/html", ...answer.headers },
        });
      }
      const headers = Object.fromEntries(req.headers.entries());
      if (req.method === "POST") proxy.last = { headers, body };
      const res = await fetch(`${target}${url.pathname}${url.search}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
      });
      arrivals.push({ at, status: res.status });
      proxy.seen.push({ method: req.method, path: url.pathname, status: res.status });
      return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
    },
  });
  proxy.url = `http://127.0.0.1:${server.port}`;
  return proxy;
}

/** The events a receiver's SQLite store holds. */
export function storedEvents(path: string): { job_id: string; event_id: string; body: any }[] {
  const db = new Database(path, { readonly: true });
  try {
    return (db.query("SELECT job_id, event_id, body FROM harness_events ORDER BY received_at").all() as any[]).map(
      (r) => ({ job_id: r.job_id, event_id: r.event_id, body: JSON.parse(r.body) }),
    );
  } finally {
    db.close();
  }
}
