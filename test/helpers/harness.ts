/** What the harness tests share: a real S3-compatible server, a proxy that fails on purpose, a receiver process. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { baseEnv, binary } from "./bin.ts";

export const S3_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/** s3rver on 127.0.0.1 with one bucket, in a fresh folder. */
export async function s3Server(bucket: string): Promise<{ endpoint: string; client: Bun.S3Client; close(): Promise<void> }> {
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory: mkdtempSync(join(tmpdir(), "s3-")), configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return { endpoint, client: new Bun.S3Client({ endpoint, bucket, ...S3_CREDENTIALS, region: "us-east-1" }), close: () => server.close() };
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
export function failingProxy(target: string, failures: number, when: (method: string, path: string) => boolean = () => true): Proxy {
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
        return new Response("<Error><Code>InternalError</Code><Message>failing on purpose</Message></Error>", { status: 500, headers: { "content-type": "application/xml" } });
      }
      const headers = Object.fromEntries(req.headers.entries());
      if (req.method === "POST") proxy.last = { headers, body };
      const res = await fetch(`${target}${url.pathname}${url.search}`, { method: req.method, headers, body: req.method === "GET" || req.method === "HEAD" ? undefined : body });
      proxy.seen.push({ method: req.method, path: url.pathname, status: res.status });
      return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
    },
  });
  proxy.url = `http://127.0.0.1:${server.port}`;
  return proxy;
}

/** `harness receive` as a process: resolves its URL once it says it is listening. */
export async function receiverProcess(args: string[], env: Record<string, string>): Promise<{ url: string; done: Promise<{ code: number; json: any; stderr: string }>; stop(): void }> {
  const p = Bun.spawn([binary("harness"), "receive", "--listen", "127.0.0.1:0", "--json", ...args], { env: baseEnv(env), stdout: "pipe", stderr: "pipe", stdin: "ignore" });
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
  return { url, done, stop: () => p.kill("SIGTERM") };
}
