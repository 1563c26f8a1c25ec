/**
 * A stage's pages as NDJSON beside its artifact, so no stage holds a site in
 * memory: the artifact (written by the run dir, atomically, with tool version,
 * stage and input checksum: contract §7) names the file by its sha256 and
 * line count, and the file is named by its hash too, so a reader never pairs
 * an artifact with another run's pages. The file is written aside and renamed
 * into place before the artifact that names it; a reader checks the hash and
 * count as it streams, and a mismatch is INVALID_ARTIFACT.
 */
import { closeSync, fsyncSync, openSync, readdirSync, readSync, renameSync, rmSync, writeSync } from "node:fs";
import { sweepTemps } from "agent-cli-kit";
import { join } from "node:path";
import { KitError } from "agent-cli-kit";

/** What an artifact records of its pages file. */
export interface PagesFile {
  file: string;
  sha256: string;
  count: number;
}

const FLUSH_BYTES = 1 << 20;
/**
 * A reader collects garbage every this many lines: each parsed page is
 * garbage a line later, and the collector left to itself lets it pile up
 * with the site (30,000 pages: audit peaked at 161 MB, 123 MB collecting
 * every 10,000 lines, at no measurable cost in time).
 */
const COLLECT_EVERY = 10_000;

export class PageWriter<T> {
  readonly #tmp: string;
  readonly #fd: number;
  readonly #hash = new Bun.CryptoHasher("sha256");
  #buffer: string[] = [];
  #buffered = 0;
  #closed = false;
  count = 0;
  /** Bytes in the file so far (after redaction): where the next flushed line starts. */
  bytes = 0;
  /** Sees every block as it is written (a section's own hash: finding-store.ts). */
  tap: ((block: Uint8Array) => void) | null = null;

  constructor(
    private readonly dir: string,
    private readonly stage: string,
    /** The run dir's redactor: what it writes passes through it, as artifacts do. */
    private readonly redact: (text: string) => string,
    private readonly kind = "pages",
  ) {
    // A killed run's temp file is swept first (the kit's rule: its writer gone, or stale), as every atomic write does.
    const path = join(dir, `${stage}.${kind}.ndjson`);
    sweepTemps(path);
    this.#tmp = `${path}.tmp-${process.pid}-${crypto.randomUUID()}`;
    this.#fd = openSync(this.#tmp, "w");
    sweepTemps(path, this.#tmp);
  }

  write(item: T): void {
    this.writeLine(JSON.stringify(item));
  }

  /** A line already JSON (one item, no newline). */
  writeLine(json: string): void {
    const line = `${json}\n`;
    this.#buffer.push(line);
    this.#buffered += line.length;
    this.count++;
    if (this.#buffered >= FLUSH_BYTES) this.flush();
  }

  /** Writes what is buffered: afterwards `bytes` is where the next line starts. */
  flush(): void {
    this.#cleanlyOnFailure(() => this.#flush());
  }

  /** A write that fails (a full disk) takes its temp file with it: nothing is left to eat the space a retry needs. */
  #cleanlyOnFailure<R>(step: () => R): R {
    try {
      return step();
    } catch (e) {
      this.abandon();
      throw e;
    }
  }

  #flush(): void {
    if (this.#buffer.length === 0) return;
    // Whole lines at a time, so a secret is never split between two passes of the redactor.
    const bytes = Buffer.from(this.redact(this.#buffer.join("")), "utf8");
    this.#hash.update(bytes);
    this.tap?.(bytes);
    for (let at = 0; at < bytes.length; ) at += writeSync(this.#fd, bytes, at);
    this.bytes += bytes.length;
    this.#buffer = [];
    this.#buffered = 0;
  }

  /** Flushes, syncs and renames the file into place under its hash; the artifact naming it is written next. */
  finish(): PagesFile {
    return this.#cleanlyOnFailure(() => {
      this.#flush();
      fsyncSync(this.#fd);
      this.#close();
      const sha256 = this.#hash.digest("hex");
      const file = `${this.stage}.${this.kind}.${sha256.slice(0, 16)}.ndjson`;
      renameSync(this.#tmp, join(this.dir, file));
      return { file, sha256: `sha256:${sha256}`, count: this.count };
    });
  }

  /** Removes the file being written (the stage failed). */
  abandon(): void {
    try {
      this.#close();
    } catch {}
    rmSync(this.#tmp, { force: true });
  }

  /** Once only: a descriptor closed twice may close another file that reused its number. */
  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }
}

/** Removes the stage's files of this kind other than `keep` (and its index): those of earlier runs into this dir. */
export function removeStale(dir: string, stage: string, keep: string, kind = "pages"): void {
  const keepIndex = keep.replace(/\.ndjson$/, ".index.json");
  for (const name of readdirSync(dir))
    if (
      name.startsWith(`${stage}.${kind}.`) &&
      (name.endsWith(".ndjson") || name.endsWith(".index.json")) &&
      name !== keep &&
      name !== keepIndex
    )
      rmSync(join(dir, name), { force: true });
}

/** A stage's file that does not match its artifact: INVALID_ARTIFACT, naming the stage to run again. */
export const broken = (stage: string, dir: string, why: string, what = "pages") =>
  new KitError("INVALID_ARTIFACT", `${stage}.json's ${what} in ${dir} ${why}`, {
    hint: `run \`seo ${stage}\` again with --run-dir ${dir}`,
  });

/**
 * The pages of a stage's artifact, one at a time: from its pages file (read in
 * 1 MiB blocks, hashed as it goes), or from an artifact of an older seo that
 * holds them inline.
 */
export function* readPages<T>(dir: string, stage: string, data: { pages?: T[]; pages_file?: PagesFile }): Generator<T> {
  if (Array.isArray(data.pages)) {
    yield* data.pages;
    return;
  }
  yield* readLines<T>(dir, stage, data.pages_file);
}

/** A stretch of a file an artifact names, with its own hash and line count (a rule's findings: finding-store.ts). */
export interface Range {
  offset: number;
  bytes: number;
  count: number;
  sha256: string;
}

/** The lines of a file an artifact names, checked against its hash and count. */
export function* readLines<T>(dir: string, stage: string, ref: PagesFile | undefined, what = "pages"): Generator<T> {
  if (!ref) throw broken(stage, dir, "are not named", what);
  yield* readRange<T>(dir, stage, ref.file, { offset: 0, bytes: Number.POSITIVE_INFINITY, ...ref }, what);
}

/** The lines of `range` of a file an artifact names, checked against the range's hash and count as they are read. */
export function* readRange<T>(dir: string, stage: string, file: string, range: Range, what = "pages"): Generator<T> {
  if (typeof file !== "string" || file.includes("/") || file.includes("\\"))
    throw broken(stage, dir, "are not named", what);
  let fd: number;
  try {
    fd = openSync(join(dir, file), "r");
  } catch {
    throw broken(stage, dir, `are missing (${file})`, what);
  }
  const hash = new Bun.CryptoHasher("sha256");
  // A section smaller than a block gets a buffer its size: a 1 MiB one per section cost ~20 ms each.
  const block = Buffer.allocUnsafe(Math.max(1, Math.min(FLUSH_BYTES, range.bytes)));
  const decoder = new TextDecoder();
  let rest = "";
  let count = 0;
  let left = range.bytes;
  try {
    for (let at = range.offset; left > 0; ) {
      const n = readSync(fd, block, 0, Math.min(block.length, left), at);
      if (n === 0) break;
      at += n;
      left -= n;
      hash.update(block.subarray(0, n));
      const lines = (rest + decoder.decode(block.subarray(0, n), { stream: true })).split("\n");
      rest = lines.pop()!;
      for (const line of lines) {
        if (++count % COLLECT_EVERY === 0) Bun.gc(true);
        yield JSON.parse(line) as T;
      }
    }
  } catch (e) {
    if (e instanceof SyntaxError) throw broken(stage, dir, `hold a line that is not JSON (${file})`, what);
    throw e;
  } finally {
    closeSync(fd);
  }
  const whole = Number.isFinite(range.bytes) ? left === 0 : true;
  if (!whole || rest.trim() !== "" || `sha256:${hash.digest("hex")}` !== range.sha256 || count !== range.count)
    throw broken(stage, dir, `do not match their checksum (${file})`, what);
}

/** The same pages, `each` told how many have gone by (a stage's progress). */
export function* counted<T>(pages: Iterable<T>, each: (n: number) => void): Generator<T> {
  let n = 0;
  for (const p of pages) {
    yield p;
    each(++n);
  }
}
