import * as z from "agent-cli-kit/schema";
import { join, resolve as resolvePath } from "node:path";
import { defineCommand, describe, KitError } from "agent-cli-kit";
import { SchemaRegistry } from "agent-cli-kit/harness";
import { createReceiver, type ReceiverEvent } from "agent-cli-kit/harness";
import { openEventStore } from "agent-cli-kit/harness";
import type { DescribeDoc } from "agent-cli-kit/harness";
import { fleetTool, fleetTools, internalAnswer, selfArgv } from "agent-cli-kit/harness";
import { SECRET, SECRET_ENV } from "./shared.ts";

const STORE_ENV = "AGENT_RECEIVER_URL";
/** How long a signal's answer waits for the requests in flight: within the 2 s a stopping process has. */
const WIND_DOWN_MS = 1500;

/** The registry of result schemas: the harness's own (a report is its job execute result) and each fleet tool's, from their describe documents. */
function registryOfFleet(path: string, warn: (m: string) => void): SchemaRegistry {
  const docs: DescribeDoc[] = [];
  for (const [tool, argv] of [
    ["harness", selfArgv()] as const,
    ...fleetTools().map((t) => [t, fleetTool(t)] as const),
  ]) {
    const p = Bun.spawnSync([...argv, "--describe"], { stdout: "pipe", stderr: "ignore", env: { PATH: path } });
    if (p.exitCode === 0) docs.push(JSON.parse(p.stdout.toString()) as DescribeDoc);
    else warn(`${tool} --describe failed: its results cannot be validated, and reports with them are refused`);
  }
  return SchemaRegistry.of(docs);
}

const parseListen = (listen: string): { hostname: string; port: number } => {
  const m = /^([\w.-]+|\[[0-9a-f:]+\]):(\d{1,5})$/i.exec(listen);
  if (!m || Number(m[2]) > 65535)
    throw new KitError("INVALID_VALUE", `--listen must be HOST:PORT, e.g. 127.0.0.1:8080 (got: '${listen}')`, {
      got: listen,
    });
  return { hostname: m[1]!, port: Number(m[2]) };
};

type EventStore = Awaited<ReturnType<typeof openEventStore>>;

/**
 * The store accepted events go to: the PostgreSQL database `url` names, else
 * the SQLite file `file`, else `scratch` (in the run dir). A dry run touches
 * no store of the caller's (a file it would create, a database it would
 * connect to): the scratch one.
 */
async function storeOf(
  dryRun: boolean,
  file: string | null,
  at: { url: string | undefined; scratch: string },
): Promise<EventStore> {
  return openEventStore(dryRun ? undefined : at.url, file && !dryRun ? file : at.scratch).catch((e: Error) => {
    throw new KitError("UPSTREAM_ERROR", `the event store cannot be opened: ${e.message}`, {
      hint: `check ${STORE_ENV} or --store`,
    });
  });
}

/** Listens on `listen` (its HOST:PORT parsed as `at`); an address it cannot take closes the store and says why. */
async function serve(
  at: { hostname: string; port: number },
  listen: string,
  handle: (request: Request) => Response | Promise<Response>,
  store: EventStore,
): Promise<ReturnType<typeof Bun.serve>> {
  const { hostname, port } = at;
  try {
    // Never the development error page: it would show the exception and the working directory. Never a port
    // shared with another process either (SO_REUSEPORT, which Bun sets outside development): a second receiver
    // would split the reports between two stores, and a replay reaching the other one would be taken as new.
    return Bun.serve({
      hostname,
      port,
      fetch: handle,
      development: false,
      reusePort: false,
      error: () => internalAnswer(),
    });
  } catch (e) {
    await store.close();
    const inUse = (e as { code?: string }).code === "EADDRINUSE";
    throw new KitError(
      "INVALID_INPUT",
      inUse
        ? `cannot listen on ${listen}: ${listen} is in use by another process (a receiver never shares its port)`
        : `cannot listen on ${listen}: ${(e as Error).message}`,
      { got: listen, hint: "give a free port, or 0" },
    );
  }
}

export default defineCommand({
  verb: "receive",
  tier: 2,
  rw: "write",
  summary:
    "Serve the receiving side of job reports over HTTP: check each signature, timestamp and schema, store each event once.",
  description:
    "Listens on --listen (the address is logged on stderr as `listening on URL`) for --for seconds, or until --max-reports reports are accepted, or a signal stops it; one of the two bounds is required. With --dry-run it binds, says where, and serves nothing. A request is refused, with its own reason, for a bad signature, a body changed in flight, a timestamp outside --window seconds, a replayed event (unique job_id, event_type, event_id in the store), a report that breaks harness.job.execute@1, a total that is not the sum of its steps or a step past the harness's bounds (cost, tokens), a failed step with data or without its error, a step claiming a schema of another tool, or a step whose data breaks the schema it names (422, naming the path). A store that fails answers 503 with short JSON. A port in use is refused, never shared. The store is SQLite (--store, default receiver.sqlite in the run dir) or the PostgreSQL database AGENT_RECEIVER_URL names.",
  flags: z.object({
    listen: describe(
      z._default(z.string().check(z.minLength(3)), "127.0.0.1:0"),
      "HOST:PORT to listen on; port 0 picks a free one.",
    ),
    maxReports: describe(
      z.optional(z.int().check(z.minimum(1), z.maximum(1_000_000))),
      "Stop after accepting this many reports.",
    ),
    for: describe(z.optional(z.int().check(z.minimum(1), z.maximum(86_400))), "Stop after serving this many seconds."),
    window: describe(
      z._default(z.int().check(z.minimum(1), z.maximum(86_400)), 300),
      "Seconds a request's timestamp may be from now.",
    ),
    store: describe(
      z.optional(z.string().check(z.minLength(1))),
      "The SQLite file of accepted events (default: receiver.sqlite in the run dir).",
    ),
  }),
  result: z.object({
    url: z.string(),
    accepted: z.array(z.object({ job_id: z.string(), event_id: z.string(), status: z.string() })),
    refused: z.array(
      z.object({ reason: z.string(), status: z.int(), detail: z.optional(z.record(z.string(), z.unknown())) }),
    ),
  }),
  schema: "harness.receive@1",
  errors: ["MISSING_ENV", "MISSING_FLAG", "INVALID_INPUT", "UPSTREAM_ERROR"],
  env: [
    { ...SECRET, required: true },
    {
      name: STORE_ENV,
      scope: "write",
      description: "A postgres:// URL for the event store (its credentials inside); unset: a SQLite file.",
    },
  ],
  examples: [
    {
      argv: ["--listen", "127.0.0.1:8080", "--max-reports", "1"],
      summary: "Accept one report on port 8080, then stop.",
    },
    { argv: ["--listen", "0.0.0.0:8080", "--for", "3600"], summary: "Serve for an hour." },
  ],
  async run(ctx) {
    const address = parseListen(ctx.flags.listen);
    // Nothing waits unbounded (contract §3): a receiver is told when to stop.
    if (ctx.flags.maxReports === undefined && ctx.flags.for === undefined)
      throw new KitError(
        "MISSING_FLAG",
        "--for or --max-reports is required: a receiver serves until one of them is met, or a signal",
        { hint: "add --for 3600 to serve an hour, or --max-reports 1" },
      );
    ctx.runDir.create();
    const store = await storeOf(ctx.dryRun, ctx.flags.store ? resolvePath(ctx.cwd, ctx.flags.store) : null, {
      url: ctx.env[STORE_ENV],
      scratch: join(ctx.runDir.path, "receiver.sqlite"),
    });
    const accepted: { job_id: string; event_id: string; status: string }[] = [];
    const refused: { reason: string; status: number; detail?: Record<string, unknown> }[] = [];
    const { promise: done, resolve } = Promise.withResolvers<void>();
    const onEvent = (e: ReceiverEvent) => {
      if (e.accepted) accepted.push({ job_id: e.jobId, event_id: e.eventId, status: e.status });
      else refused.push({ reason: e.reason, status: e.status, ...(e.detail ? { detail: e.detail } : {}) });
      ctx.log.info(
        e.accepted ? `accepted ${e.eventId} (job ${e.jobId}, ${e.status})` : `refused: ${e.reason} (${e.status})`,
      );
      if (e.accepted && ctx.flags.maxReports !== undefined && accepted.length >= ctx.flags.maxReports) resolve();
    };
    const handle = createReceiver({
      secret: ctx.env[SECRET_ENV]!,
      store,
      registry: registryOfFleet(ctx.env.PATH ?? "", (m) => ctx.log.warn(m)),
      now: ctx.now,
      windowSeconds: ctx.flags.window,
      onEvent,
      redact: ctx.redact,
    });
    const server = await serve(address, ctx.flags.listen, handle, store);
    const url = `http://${address.hostname}:${server.port}`;
    ctx.log.info(`listening on ${url}`);
    // A signal stops it too: no new connection, the requests in flight answered and stored (within the
    // wind-down), then CANCELLED with what was accepted (the lists as they are then).
    const { promise: closed, resolve: close } = Promise.withResolvers<void>();
    ctx.checkpoint({ url, accepted, refused });
    ctx.windDown(closed, WIND_DOWN_MS);
    ctx.signal.addEventListener("abort", () => resolve(), { once: true });
    const timer = ctx.flags.for === undefined ? null : setTimeout(resolve, ctx.flags.for * 1000);
    if (ctx.dryRun) resolve(); // it binds and says where, and serves nothing
    await done;
    if (timer) clearTimeout(timer);
    try {
      await server.stop();
      await store.close();
    } finally {
      close();
    }
    return { url, accepted, refused };
  },
});
