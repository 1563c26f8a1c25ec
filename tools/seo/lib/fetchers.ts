/**
 * Where pages come from: a live site over HTTP(S), or a static-site folder
 * read as a web server would serve it. The crawler sees one interface and
 * follows redirects itself, so every hop is recorded.
 */
import { closeSync, openSync, readFileSync, readSync, realpathSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { decodeHtml, type EncodingSource } from "./decode.ts";

export const USER_AGENT = "agent-cli-kit-seo/0.1 (+https://github.com/agent-cli-kit)";
/** The default --max-body-bytes: a page larger than this is read up to it, and the cut is a finding (`body-cut`). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface Fetched {
  status: number;
  location: string | null;
  contentType: string | null;
  xRobotsTag: string | null;
  body: string | null;
  /** The encoding the body was decoded from, and what said so (null: no body). */
  encoding: { name: string; source: EncodingSource } | null;
  /** The body's full size in bytes (null: no body read); `cut` when only the first --max-body-bytes were read. */
  size: number | null;
  cut: boolean;
  /** For a folder: the file served, relative to the folder. */
  file: string | null;
  error: string | null;
}

export interface Fetcher {
  get(url: string, signal: AbortSignal): Promise<Fetched>;
  /** The site's robots.txt, or null when it has none. */
  robotsTxt(start: string, signal: AbortSignal): Promise<string | null>;
}

export const isHtml = (contentType: string | null): boolean =>
  /\btext\/html\b|\bapplication\/xhtml\+xml\b/i.test(contentType ?? "");

/** A response body up to `limit` bytes, and its full size: the rest is counted as it streams past, never held. */
async function readUpTo(res: Response, limit: number): Promise<{ bytes: Uint8Array; size: number }> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (kept < limit) {
      const part = chunk.subarray(0, limit - kept);
      chunks.push(part);
      kept += part.byteLength;
    }
  }
  const bytes = new Uint8Array(kept);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes, size };
}

export class HttpFetcher implements Fetcher {
  constructor(
    private readonly timeoutMs: number,
    private readonly maxBodyBytes = MAX_BODY_BYTES,
  ) {}

  async robotsTxt(start: string, signal: AbortSignal): Promise<string | null> {
    try {
      const res = await fetch(new URL("/robots.txt", start), {
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
        headers: { "user-agent": USER_AGENT },
      });
      // 4xx means "no rules"; a server error too, rather than refusing to audit the site.
      if (!res.ok) return null;
      return (await res.text()).slice(0, 512 * 1024);
    } catch (e) {
      if (signal.aborted) throw e;
      return null;
    }
  }

  async get(url: string, signal: AbortSignal): Promise<Fetched> {
    const none = {
      location: null,
      contentType: null,
      xRobotsTag: null,
      body: null,
      encoding: null,
      size: null,
      cut: false,
      file: null,
    };
    try {
      const res = await fetch(url, {
        redirect: "manual",
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
        headers: { "user-agent": USER_AGENT, accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5" },
      });
      const contentType = res.headers.get("content-type");
      let decoded = null;
      let size: number | null = null;
      // A redirect's body is never a page; an error page's is worth reading.
      if (isHtml(contentType) && (res.status < 300 || res.status >= 400)) {
        const read = await readUpTo(res, this.maxBodyBytes);
        size = read.size;
        decoded = decodeHtml(read.bytes, contentType);
      } else {
        await res.body?.cancel();
      }
      const encoding = decoded && { name: decoded.encoding, source: decoded.source };
      return {
        status: res.status,
        location: res.headers.get("location"),
        contentType,
        xRobotsTag: res.headers.get("x-robots-tag"),
        body: decoded?.text ?? null,
        encoding,
        size,
        cut: size !== null && size > this.maxBodyBytes,
        file: null,
        error: null,
      };
    } catch (e) {
      if (signal.aborted) throw e;
      const err = e as Error;
      const message = err.name === "TimeoutError" ? `timed out after ${this.timeoutMs} ms` : err.message;
      return { status: 0, ...none, error: message };
    }
  }
}

const CONTENT_TYPES: Record<string, string> = {
  // No charset: a folder's page says its own encoding (a BOM or a meta), as it does when a host serves it without one.
  ".html": "text/html",
  ".htm": "text/html",
  ".xhtml": "application/xhtml+xml",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml",
  ".css": "text/css",
  ".js": "text/javascript",
  ".json": "application/json",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".webp": "image/webp",
  ".pdf": "application/pdf",
};

/**
 * Serves a folder the way static hosts do: `/a/` is `a/index.html`, `/a` is
 * `a`, `a.html` or `a/index.html`. A folder published under a path
 * (`--base-url https://host/docs/15/`) serves that path and below.
 */
export class DirFetcher implements Fetcher {
  readonly root: string;

  constructor(
    dir: string,
    private readonly basePath = "/",
    private readonly maxBodyBytes = MAX_BODY_BYTES,
  ) {
    this.root = realpathSync(dir);
  }

  /** The file a site path resolves to, never outside the folder. */
  resolve(pathname: string): string | null {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return null;
    }
    const candidates = decoded.endsWith("/")
      ? [`${decoded}index.html`]
      : [decoded, `${decoded}.html`, `${decoded}/index.html`];
    for (const candidate of candidates) {
      const full = join(this.root, candidate);
      let real: string;
      try {
        // A link loop or a path through a file is not a page: the host would answer 404 too.
        if (!statSync(full, { throwIfNoEntry: false })?.isFile()) continue;
        real = realpathSync(full);
      } catch {
        continue;
      }
      if (real !== this.root && !real.startsWith(this.root + sep)) return null;
      return real;
    }
    return null;
  }

  async robotsTxt(): Promise<string | null> {
    // A folder published under a path has no say over the host's /robots.txt.
    if (this.basePath !== "/") return null;
    const file = this.resolve("/robots.txt");
    return file ? readFileSync(file, "utf8") : null;
  }

  async get(url: string): Promise<Fetched> {
    const pathname = new URL(url).pathname;
    const file = pathname.startsWith(this.basePath) ? this.resolve(`/${pathname.slice(this.basePath.length)}`) : null;
    const none = { location: null, xRobotsTag: null, error: null };
    if (!file)
      return {
        status: 404,
        contentType: null,
        body: null,
        encoding: null,
        size: null,
        cut: false,
        file: null,
        ...none,
      };
    const contentType = CONTENT_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
    const size = isHtml(contentType) ? statSync(file).size : null;
    const decoded = size === null ? null : decodeHtml(readHead(file, Math.min(size, this.maxBodyBytes)), contentType);
    const encoding = decoded && { name: decoded.encoding, source: decoded.source };
    const cut = size !== null && size > this.maxBodyBytes;
    return {
      status: 200,
      contentType,
      body: decoded?.text ?? null,
      encoding,
      size,
      cut,
      file: relative(this.root, file).split(sep).join("/"),
      ...none,
    };
  }
}

/** The first `length` bytes of a file, without reading the rest. */
function readHead(file: string, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  const fd = openSync(file, "r");
  try {
    let at = 0;
    while (at < length) {
      const n = readSync(fd, bytes, at, length - at, at);
      if (n === 0) break;
      at += n;
    }
    return bytes.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}
