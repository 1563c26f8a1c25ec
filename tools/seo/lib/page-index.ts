/**
 * An index of extract's pages file, so `page list`, `page get` and `score`
 * answer without re-reading every page (tens of MB on a site of a few hundred
 * pages): each page's list columns and where its line lies in the file. It is
 * a small JSON file beside the pages file, named after it (so it pairs with
 * those pages only), written by extract and, for a run dir from before it, on
 * first read. It is built from one read of the pages file checked against its
 * hash and count; a page read through it is checked to be the page it names.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { broken, type PagesFile } from "./page-store.ts";
import type { ExtractedPage } from "./page-schema.ts";
import type { ExtractData } from "./artifacts.ts";

/** A page's list columns, and its line's byte offset and length in the pages file. */
export interface IndexedPage {
  url: string;
  final_url: string;
  status: number;
  title: string | null;
  depth: number;
  word_count: number;
  /** A 2xx HTML page: what the score calls a content page. */
  content: boolean;
  at: number;
  bytes: number;
}

interface IndexFile {
  pages_sha256: string;
  count: number;
  pages: IndexedPage[];
}

const BLOCK = 1 << 20;

export const indexFileOf = (pages: PagesFile): string => pages.file.replace(/\.ndjson$/, ".index.json");

/** The index of the pages `ref` names: read from its file, else built (and written, where the run dir allows). */
export function pageIndex(dir: string, ref: PagesFile): IndexedPage[] {
  const path = join(dir, indexFileOf(ref));
  try {
    const stored = JSON.parse(readFileSync(path, "utf8")) as IndexFile;
    if (stored.pages_sha256 === ref.sha256 && stored.count === ref.count && Array.isArray(stored.pages))
      return stored.pages;
  } catch {}
  const pages = buildIndex(dir, ref);
  const tmp = `${path}.tmp-${process.pid}-${crypto.randomUUID()}`;
  try {
    writeFileSync(tmp, JSON.stringify({ pages_sha256: ref.sha256, count: ref.count, pages } satisfies IndexFile));
    renameSync(tmp, path);
  } catch {
    // A run dir that cannot be written to is still read: the index is only a shortcut.
    rmSync(tmp, { force: true });
  }
  return pages;
}

/** One pass over the pages file, by bytes (an offset is a byte's), checked against the artifact's hash and count. */
function buildIndex(dir: string, ref: PagesFile): IndexedPage[] {
  const fd = openFile(dir, ref);
  const hash = new Bun.CryptoHasher("sha256");
  const block = Buffer.alloc(BLOCK);
  const pages: IndexedPage[] = [];
  let rest = Buffer.alloc(0);
  let restAt = 0;
  try {
    for (let at = 0; ; ) {
      const n = readSync(fd, block, 0, BLOCK, at);
      if (n === 0) break;
      hash.update(block.subarray(0, n));
      const bytes = rest.length > 0 ? Buffer.concat([rest, block.subarray(0, n)]) : block.subarray(0, n);
      let start = 0;
      for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
        pages.push(rowOf(dir, bytes.subarray(start, nl), restAt + start));
        start = nl + 1;
      }
      rest = Buffer.from(bytes.subarray(start));
      restAt += start;
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  if (rest.length > 0 || `sha256:${hash.digest("hex")}` !== ref.sha256 || pages.length !== ref.count)
    throw broken("extract", dir, `do not match their checksum (${ref.file})`);
  return pages;
}

function rowOf(dir: string, line: Buffer, at: number): IndexedPage {
  let p: ExtractedPage;
  try {
    p = JSON.parse(line.toString("utf8")) as ExtractedPage;
  } catch {
    throw broken("extract", dir, "hold a line that is not JSON");
  }
  const content = p.status >= 200 && p.status < 300 && Boolean(p.html);
  const { url, final_url, status, title, depth, word_count } = p;
  return { url, final_url, status, title, depth, word_count, content, at, bytes: line.length };
}

function openFile(dir: string, ref: PagesFile): number {
  if (typeof ref.file !== "string" || ref.file.includes("/") || ref.file.includes("\\"))
    throw broken("extract", dir, "are not named");
  try {
    return openSync(join(dir, ref.file), "r");
  } catch {
    throw broken("extract", dir, `are missing (${ref.file})`);
  }
}

/** The page an index row points at, read alone; INVALID_ARTIFACT when the file no longer holds it there. */
export function indexedPage(dir: string, ref: PagesFile, row: IndexedPage): ExtractedPage {
  const fd = openFile(dir, ref);
  try {
    const buf = Buffer.alloc(row.bytes);
    const n = fstatSync(fd).size >= row.at + row.bytes ? readSync(fd, buf, 0, row.bytes, row.at) : 0;
    const page = n === row.bytes ? (JSON.parse(buf.toString("utf8")) as ExtractedPage) : null;
    if (page?.url !== row.url) throw new Error("moved");
    return page;
  } catch {
    throw broken("extract", dir, `do not match their index (${ref.file})`);
  } finally {
    closeSync(fd);
  }
}

type Listed = Omit<IndexedPage, "at" | "bytes">;
const listed = (p: ExtractedPage): Listed => ({
  url: p.url,
  final_url: p.final_url,
  status: p.status,
  title: p.title,
  depth: p.depth,
  word_count: p.word_count,
  content: p.status >= 200 && p.status < 300 && Boolean(p.html),
});

/** Extract's pages as the list shows them: from the index, or from an older extract.json that holds them inline. */
export function listedPages(dir: string, site: ExtractData): Iterable<Listed> {
  if (Array.isArray(site.pages)) return site.pages.map(listed);
  if (!site.pages_file) throw broken("extract", dir, "are not named");
  return pageIndex(dir, site.pages_file);
}

/** The first of extract's pages that `wanted` picks (by its list columns), read whole; null when none does. */
export function findPage(dir: string, site: ExtractData, wanted: (p: Listed) => boolean): ExtractedPage | null {
  if (Array.isArray(site.pages)) return site.pages.find((p) => wanted(listed(p))) ?? null;
  if (!site.pages_file) throw broken("extract", dir, "are not named");
  const row = pageIndex(dir, site.pages_file).find(wanted);
  return row ? indexedPage(dir, site.pages_file, row) : null;
}
