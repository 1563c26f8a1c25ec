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

export class PageWriter<T> {
  readonly #tmp: string;
  readonly #fd: number;
  readonly #hash = new Bun.CryptoHasher("sha256");
  #buffer: string[] = [];
  #buffered = 0;
  #closed = false;
  count = 0;

  constructor(
    private readonly dir: string,
    private readonly stage: string,
    /** The run dir's redactor: what it writes passes through it, as artifacts do. */
    private readonly redact: (text: string) => string,
    private readonly kind = "pages",
  ) {
    // A killed run's temp file is swept first (the kit's rule: its writer gone, or stale), as every atomic write does.
    sweepTemps(join(dir, `${stage}.${kind}.ndjson`));
    this.#tmp = join(dir, `${stage}.${kind}.ndjson.tmp-${process.pid}-${crypto.randomUUID()}`);
    this.#fd = openSync(this.#tmp, "w");
  }

  write(item: T): void {
    const line = `${JSON.stringify(item)}\n`;
    this.#buffer.push(line);
    this.#buffered += line.length;
    this.count++;
    if (this.#buffered >= FLUSH_BYTES) this.#cleanlyOnFailure(() => this.#flush());
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
    for (let at = 0; at < bytes.length; ) at += writeSync(this.#fd, bytes, at);
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

/** Removes the stage's files of this kind other than `keep`: those of earlier runs into this dir. */
export function removeStale(dir: string, stage: string, keep: string, kind = "pages"): void {
  for (const name of readdirSync(dir))
    if (name.startsWith(`${stage}.${kind}.`) && name.endsWith(".ndjson") && name !== keep)
      rmSync(join(dir, name), { force: true });
}

const broken = (stage: string, dir: string, why: string) =>
  new KitError("INVALID_ARTIFACT", `${stage}.json's pages in ${dir} ${why}`, {
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

/** The lines of a file an artifact names, checked against its hash and count. */
export function* readLines<T>(dir: string, stage: string, ref: PagesFile | undefined): Generator<T> {
  if (!ref || typeof ref.file !== "string" || ref.file.includes("/") || ref.file.includes("\\"))
    throw broken(stage, dir, "are not named");
  let fd: number;
  try {
    fd = openSync(join(dir, ref.file), "r");
  } catch {
    throw broken(stage, dir, `are missing (${ref.file})`);
  }
  const hash = new Bun.CryptoHasher("sha256");
  const block = Buffer.alloc(FLUSH_BYTES);
  const decoder = new TextDecoder();
  let rest = "";
  let count = 0;
  try {
    for (;;) {
      const n = readSync(fd, block, 0, block.length, null);
      if (n === 0) break;
      hash.update(block.subarray(0, n));
      const text = rest + decoder.decode(block.subarray(0, n), { stream: true });
      const lines = text.split("\n");
      rest = lines.pop()!;
      for (const line of lines) {
        count++;
        yield JSON.parse(line) as T;
      }
    }
  } catch (e) {
    if (e instanceof SyntaxError) throw broken(stage, dir, `hold a line that is not JSON (${ref.file})`);
    throw e;
  } finally {
    closeSync(fd);
  }
  if (rest.trim() !== "" || `sha256:${hash.digest("hex")}` !== ref.sha256 || count !== ref.count)
    throw broken(stage, dir, `do not match their checksum (${ref.file})`);
}
