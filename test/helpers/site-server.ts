/** A real HTTP server on 127.0.0.1 serving a small site: routes are data, so each test states its site. */
import type { Server } from "bun";

export interface Route {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Resolve to let the response go: for tests that must interrupt a request in flight. */
  hold?: Promise<void>;
}

export interface SiteServer {
  url: string;
  server: Server<undefined>;
  /** Paths in the order they were requested. */
  requests: string[];
  /** Resolves when a request for this path arrives. */
  requested(path: string): Promise<void>;
  stop(): void;
}

export function serveSite(routes: Record<string, Route>): SiteServer {
  const requests: string[] = [];
  const waiters = new Map<string, () => void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const u = new URL(req.url);
      const path = `${u.pathname}${u.search}`;
      requests.push(path);
      waiters.get(path)?.();
      const route = routes[path];
      if (!route)
        return new Response("<html><head><title>Not found</title></head><body>gone</body></html>", {
          status: 404,
          headers: { "content-type": "text/html" },
        });
      if (route.hold) await route.hold;
      return new Response(route.body ?? "", {
        status: route.status ?? 200,
        headers: { "content-type": "text/html; charset=utf-8", ...route.headers },
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    server,
    requests,
    requested: (path) => new Promise((resolve) => waiters.set(path, resolve)),
    stop: () => server.stop(true),
  };
}

export const page = (o: { title?: string; body?: string; head?: string; lang?: string | null }) =>
  `<!doctype html><html${o.lang === null ? "" : ` lang="${o.lang ?? "en"}"`}><head>${o.title === undefined ? "" : `<title>${o.title}</title>`}${o.head ?? ""}</head><body>${o.body ?? ""}</body></html>`;
