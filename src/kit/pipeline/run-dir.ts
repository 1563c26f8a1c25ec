/**
 * contract §7: pipeline artifacts in the run dir. Each stage writes one JSON
 * artifact atomically (write aside, then rename) recording the tool version,
 * the stage, and a checksum of its inputs, so a later stage can be re-run on
 * an earlier stage's output and a replay can be compared with the original.
 */
import { KitError } from "../output/index.ts";
import { writeAtomic } from "./atomic.ts";
import { sha256 } from "./hash.ts";
import { fs } from "../base/index.ts";
import { resolvePath, resolveWithin } from "./paths.ts";

export interface ArtifactHeader {
  artifact: string;
  tool: string;
  tool_version: string;
  stage: string;
  created_at: string;
  /** sha256 over the input artifacts' checksums, or over the stage's flags when it reads none. */
  input_checksum: string;
  inputs: { artifact: string; checksum: string }[];
  model: string | null;
  prompt_version: string | null;
}

export interface Artifact<T = unknown> extends ArtifactHeader {
  data: T;
}

export interface RunDirOptions {
  readonly tool: string;
  readonly toolVersion: string;
  readonly stage: string;
  /** Which command writes each artifact: the hint when one is missing. */
  readonly producers: ReadonlyMap<string, string>;
  readonly redact: (text: string) => string;
  readonly now: () => number;
  readonly flagsChecksum: () => string;
}

const ARTIFACT_NAME = /^[a-z][a-z0-9-]*$/;

// Reads map the file (Bun.mmap: no module to load); node:fs is loaded only
// where a folder is made, written or removed.

/** Errors of a mapping that a plain read may not share: the file is readable, only not writable. */
const READ_ONLY = new Set(["EROFS", "EACCES", "EPERM"]);

const errnoOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/** The folder a run reads and writes: given by --run-dir, or a fresh temporary one. */
export class RunDir {
  #path: string | undefined;
  readonly #given: boolean;
  /** A fresh run dir removed because it held nothing to read: no longer there to report. */
  #removed = false;
  /** What this stage read, hashed only if it writes an artifact of its own. */
  readonly #reads: { artifact: string; bytes: Uint8Array }[] = [];

  constructor(
    given: string | undefined,
    cwd: string,
    private readonly tmpdir: string,
    private readonly opts: RunDirOptions,
  ) {
    this.#given = given !== undefined;
    if (given !== undefined) this.#path = resolvePath(cwd, given);
  }

  /** A given run dir that is a file: found when it is first read or written. */
  #notAFolder(): KitError {
    return new KitError("INVALID_INPUT", `--run-dir ${this.#path} is not a folder`, {
      got: this.#path,
      hint: "give a folder path (it is created if absent)",
    });
  }

  /** The run dir's absolute path; the default is created on first use. */
  get path(): string {
    this.#path ??= fs().mkdtempSync(resolvePath(this.tmpdir, `${this.opts.tool}-run-`));
    return this.#path;
  }

  /** Makes the folder now: a stage finds a bad --run-dir before its work, not after. */
  create(): void {
    try {
      fs().mkdirSync(this.path, { recursive: true });
      this.#removed = false;
    } catch (e) {
      if (errnoOf(e) === "EEXIST" || errnoOf(e) === "ENOTDIR") throw this.#notAFolder();
      throw e;
    }
  }

  /** Whether the run dir was touched and is still there (meta.run_dir is reported only then). */
  get used(): boolean {
    return this.#path !== undefined && !this.#removed;
  }

  /** A path inside the run dir; anything that would resolve outside it is refused. */
  resolveInside(relPath: string): string {
    return resolveWithin(this.path, relPath, "the run dir");
  }

  #artifactPath(name: string): string {
    if (!ARTIFACT_NAME.test(name)) throw new KitError("INTERNAL", `artifact name '${name}' is not kebab-case`);
    return `${this.path}/${name}.json`;
  }

  #missing(name: string): KitError {
    const producer = this.opts.producers.get(name);
    const runDir = this.#given ? this.path : "DIR";
    const first = producer
      ? `run \`${this.opts.tool} ${producer} --run-dir ${runDir}\` first`
      : `produce ${name}.json first`;
    if (!this.#given) {
      fs().rmSync(this.path, { recursive: true, force: true });
      this.#removed = true;
    }
    return new KitError(
      "MISSING_ARTIFACT",
      `${name}.json is not in the run dir${this.#given ? ` ${this.path}` : " (none was given, so a fresh empty one was used)"}`,
      {
        hint: this.#given ? first : `pass --run-dir with the folder of an earlier run, or ${first}`,
        detail: { artifact: name, ...(producer ? { stage: producer } : {}) },
      },
    );
  }

  /** Reads a stage's artifact; its checksum becomes part of this stage's input checksum. */
  read<T>(name: string): Artifact<T> {
    const bytes = this.#bytes(name);
    if (bytes === null) throw this.#missing(name);
    return this.#parse<T>(name, bytes);
  }

  /** Like read, but an artifact that was never written is null rather than an error. */
  readIfPresent<T>(name: string): Artifact<T> | null {
    const bytes = this.#path === undefined ? null : this.#bytes(name);
    return bytes === null ? null : this.#parse<T>(name, bytes);
  }

  #parse<T>(name: string, bytes: Uint8Array): Artifact<T> {
    let parsed: Artifact<T>;
    try {
      parsed = JSON.parse(new TextDecoder().decode(bytes)) as Artifact<T>;
    } catch {
      throw new KitError("INVALID_ARTIFACT", `${name}.json is not valid JSON`, {
        hint: `re-run the stage that writes it`,
      });
    }
    if (parsed?.artifact !== name || parsed.tool !== this.opts.tool || typeof parsed.data !== "object")
      throw new KitError("INVALID_ARTIFACT", `${name}.json is not a ${this.opts.tool} ${name} artifact`, {
        hint: `re-run \`${this.opts.tool} ${this.opts.producers.get(name) ?? name}\` into this run dir`,
      });
    this.#reads.push({ artifact: name, bytes });
    return parsed;
  }

  /**
   * An artifact's bytes, or null when there is none. Artifacts are replaced
   * by rename, never rewritten in place, so a mapped file does not change
   * under the reader.
   */
  #bytes(name: string): Uint8Array | null {
    const path = this.#artifactPath(name);
    try {
      return Bun.mmap(path);
    } catch (e) {
      if (errnoOf(e) === "ENOENT") return null;
      if (errnoOf(e) === "EINVAL") return new Uint8Array(0); // an empty file cannot be mapped
      if (errnoOf(e) === "ENOTDIR") throw this.#notAFolder();
      // Bun.mmap opens the file for writing too: read-only media and another user's 0444 file are read plainly.
      if (READ_ONLY.has(errnoOf(e) ?? "")) return this.#readPlainly(name, path);
      throw new KitError("INVALID_ARTIFACT", `${name}.json cannot be read: ${(e as Error).message}`, { cause: e });
    }
  }

  #readPlainly(name: string, path: string): Uint8Array {
    try {
      return fs().readFileSync(path);
    } catch (e) {
      throw new KitError("INVALID_ARTIFACT", `${name}.json cannot be read: ${(e as Error).message}`, {
        cause: e,
        hint: "make the file readable by this user",
      });
    }
  }

  /** The redactor artifacts pass through: for a stage that streams files of its own beside its artifact. */
  redact(text: string): string {
    return this.opts.redact(text);
  }

  /** Writes an artifact atomically; a reader never sees half of one. */
  write<T>(
    name: string,
    data: T,
    extra: { model?: string; promptVersion?: string } = {},
  ): { path: string; checksum: string } {
    const path = this.#artifactPath(name);
    const inputs = this.#reads.map((r) => ({ artifact: r.artifact, checksum: sha256(r.bytes) }));
    const artifact: Artifact<T> = {
      artifact: name,
      tool: this.opts.tool,
      tool_version: this.opts.toolVersion,
      stage: this.opts.stage,
      created_at: new Date(this.opts.now()).toISOString(),
      input_checksum: inputs.length ? sha256(inputs.map((i) => i.checksum).join("\n")) : this.opts.flagsChecksum(),
      inputs,
      model: extra.model ?? null,
      prompt_version: extra.promptVersion ?? null,
      data,
    };
    const text = this.opts.redact(`${JSON.stringify(artifact, null, 1)}\n`);
    this.create();
    // A failed write removes its temp file; a killed run's are swept here, before this stage writes again.
    writeAtomic(path, text);
    return { path, checksum: sha256(text) };
  }
}
