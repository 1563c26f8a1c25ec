/**
 * Network side effects, judged from outside (contract §1, §3). A tool
 * declares an upstream as an environment variable in --describe (its `env`,
 * or a command's): one whose name ends in `_URL`, `_URI` or `_ENDPOINT` and
 * whose description names no scheme but http(s) (a `postgres://` URL is a
 * database, not an HTTP upstream), or any declaration marked
 * `"upstream": true` (`false` opts out). verify points each at a listener of
 * its own on 127.0.0.1, which records every request and answers 200 `{}`.
 */
import type { CommandDoc, DescribeDoc } from "./schemas.ts";

export interface Heard {
  readonly method: string;
  readonly path: string;
  /** The variable whose listener it reached. */
  readonly variable: string;
  /** The request calls itself a write: it carries an Idempotency-Key. */
  readonly marked: boolean;
}

interface EnvDeclaration {
  name?: unknown;
  description?: unknown;
  upstream?: unknown;
}

const OTHER_SCHEME = /\b(?!https?:\/\/)[a-z][a-z0-9+.-]*:\/\//i;

const isUpstream = (e: EnvDeclaration): e is { name: string } => {
  if (typeof e.name !== "string") return false;
  if (typeof e.upstream === "boolean") return e.upstream;
  const description = typeof e.description === "string" ? e.description : "";
  return /_(URL|URI|ENDPOINT)$/.test(e.name) && !OTHER_SCHEME.test(description);
};

const declarations = (x: unknown): EnvDeclaration[] =>
  Array.isArray(x) ? x.filter((e): e is EnvDeclaration => e !== null && typeof e === "object") : [];

/** The upstream variables a command runs with: its own declarations and the tool's, read off the raw document. */
export function upstreamsOf(doc: DescribeDoc, c: CommandDoc): string[] {
  const all = [...declarations(doc.raw.env), ...doc.env, ...declarations(c.raw.env), ...c.env];
  return [...new Set(all.filter(isUpstream).map((e) => e.name))].sort();
}

/** Safe methods (RFC 9110 §9.2.1): a dry run may send only these, unmarked. */
const SAFE = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);
/** Methods that change what they name whatever the API: a read may query by POST, but never these. */
const CHANGING = new Set(["PUT", "PATCH", "DELETE"]);

/** What a dry run must not send: any unsafe method, or a request marked as a write. */
export const changesUnderDryRun = (h: Heard): boolean => !SAFE.has(h.method) || h.marked;
/** What a read must not send: PUT, PATCH, DELETE, or a request marked as a write. */
export const changesUnderRead = (h: Heard): boolean => CHANGING.has(h.method) || h.marked;

export const describeHeard = (h: Heard): string =>
  `${h.method} ${h.path.slice(0, 80)} to ${h.variable}${h.marked ? " (marked Idempotency-Key)" : ""}`;

/** One listener per probe: every request that reaches it is that probe's. */
export class Listener {
  readonly heard: Heard[] = [];
  readonly #servers: ReturnType<typeof Bun.serve>[] = [];
  readonly env: Record<string, string> = {};

  constructor(variables: readonly string[]) {
    for (const variable of variables) {
      const server = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: async (req) => {
          // Heard as soon as its head arrives: a tool may exit without waiting for the answer.
          this.heard.push({
            method: req.method,
            path: new URL(req.url).pathname,
            variable,
            marked: req.headers.has("idempotency-key"),
          });
          await req.arrayBuffer().catch(() => undefined);
          return Response.json({});
        },
      });
      this.#servers.push(server);
      this.env[variable] = `http://127.0.0.1:${server.port}`;
    }
  }

  /** Forgets what was heard so far (the requests of a run that prepared the probe). */
  reset(): void {
    this.heard.length = 0;
  }

  /** Lets requests already on the wire land (a few turns of the event loop), then closes. */
  async close(): Promise<void> {
    for (let i = 0; i < 3; i++) await Bun.sleep(1);
    for (const s of this.#servers) s.stop(true);
  }
}
