/**
 * A real HTTP service on 127.0.0.1 with short-lived bearer tokens, for the
 * credential tests: it issues access tokens with single-use refresh tokens,
 * answers the platform's refresh endpoint, serves records, creates them, and
 * registers a client once (its secret shown only in that answer). It counts
 * everything, so a test can say how many refreshes and effects happened.
 */
export interface TokenServerOptions {
  /** An access token dies (401) after this many uses: a token expiring mid-command, with no clock involved. */
  tokenUses?: number;
  /** Every access token is refused, refreshed ones too. */
  refuseAll?: boolean;
  /** Records served, one per page. */
  pages?: number;
}

export interface Issued {
  token: string;
  refresh_token: string;
  expires_at: number;
}

export interface TokenServer {
  url: string;
  refreshUrl: string;
  issue(credential: string, expiresInSeconds?: number): Issued;
  counts: { refreshes: number; refused: number; requests: number };
  /** Creations per record name: an effect executed twice shows as 2. */
  creates: Map<string, number>;
  /** Registrations per client name, and the secret each was given. */
  clients: Map<string, { id: string; secret: string; registrations: number }>;
  /** Every token value this server ever issued (access and refresh): the canaries of a sweep. */
  issued: string[];
  set(o: TokenServerOptions): void;
  stop(): void;
}

const rand = (prefix: string): string => `${prefix}${crypto.randomUUID().replace(/-/g, "")}`;

export function tokenServer(opts: TokenServerOptions = {}): TokenServer {
  let o = { ...opts };
  const access = new Map<string, { uses: number }>();
  const refresh = new Map<string, string>(); // refresh token → credential name, deleted once used
  const s: Omit<TokenServer, "url" | "refreshUrl" | "stop"> = {
    issue(credential, expiresInSeconds = 3600) {
      const token = rand("tok_");
      const refresh_token = rand("rt_");
      access.set(token, { uses: 0 });
      refresh.set(refresh_token, credential);
      s.issued.push(token, refresh_token);
      return { token, refresh_token, expires_at: Math.floor(Date.now() / 1000) + expiresInSeconds };
    },
    counts: { refreshes: 0, refused: 0, requests: 0 },
    creates: new Map(),
    clients: new Map(),
    issued: [],
    set(next) {
      o = { ...o, ...next };
    },
  };
  const authorized = (req: Request): boolean => {
    const token = req.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    const t = access.get(token);
    if (!t || o.refuseAll || (o.tokenUses !== undefined && t.uses >= o.tokenUses)) return false;
    t.uses++;
    return true;
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const parts = url.pathname.split("/").filter(Boolean);
      if (req.method === "POST" && url.pathname === "/refresh") {
        const body = (await req.json().catch(() => ({}))) as { credential?: string; refresh_token?: string };
        const credential = refresh.get(body.refresh_token ?? "");
        if (!credential || credential !== body.credential)
          return Response.json({ error: "the refresh token is unknown or already used" }, { status: 401 });
        refresh.delete(body.refresh_token!);
        s.counts.refreshes++;
        return Response.json(s.issue(credential));
      }
      s.counts.requests++;
      if (!authorized(req)) {
        s.counts.refused++;
        return Response.json({ error: "invalid or expired token" }, { status: 401 });
      }
      if (req.method === "GET" && parts[0] === "records" && parts.length === 1) {
        const page = Number(url.searchParams.get("page") ?? 0);
        return Response.json({ items: page < (o.pages ?? 3) ? [{ name: `record-${page}` }] : [] });
      }
      if (parts[0] === "records" && parts.length === 2 && req.method === "GET")
        return s.creates.has(parts[1]!)
          ? Response.json({ name: parts[1] })
          : new Response("no such record", { status: 404 });
      if (parts[0] === "records" && req.method === "POST") {
        const { name } = (await req.json()) as { name: string };
        s.creates.set(name, (s.creates.get(name) ?? 0) + 1);
        return Response.json({ name }, { status: 201 });
      }
      if (parts[0] === "clients" && parts.length === 2 && req.method === "GET") {
        const c = s.clients.get(parts[1]!);
        return c ? Response.json({ name: parts[1], client_id: c.id }) : new Response("no such client", { status: 404 });
      }
      if (parts[0] === "clients" && req.method === "POST") {
        const { name } = (await req.json()) as { name: string };
        const known = s.clients.get(name);
        if (known) {
          known.registrations++;
          return Response.json({ error: "already registered; the secret is not shown again" }, { status: 409 });
        }
        const c = { id: rand("cli_"), secret: rand("sk-reg-"), registrations: 1 }; // credential-shaped: the redactor would mask it anywhere else
        s.clients.set(name, c);
        return Response.json({ client_id: c.id, client_secret: c.secret }, { status: 201 });
      }
      return new Response("not found", { status: 404 });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return { ...s, url, refreshUrl: `${url}/refresh`, stop: () => server.stop(true) } as TokenServer;
}
