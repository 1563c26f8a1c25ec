/**
 * A job (contract §0): an id, steps that are argv arrays for fleet tools
 * (never a shell string), optional JSON input per step for `--params -`, and
 * where the report goes. Read from a file and checked whole before any step
 * runs; each refusal names the field.
 */
import { dirname, resolve } from "node:path";
import { KitError } from "../../kit/output/index.ts";

const JOB_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const MAX_STEPS = 100;
/** A step's time limit when the job names none, and the most it may name. */
export const DEFAULT_STEP_SECONDS = 900;
const MAX_STEP_SECONDS = 86_400;
/** Between TERM and KILL, when the job names no grace period. */
export const DEFAULT_GRACE_SECONDS = 5;
/**
 * A step's argv, within what every kernel starts (Linux refuses a word over
 * 128 KiB, and an argv with the environment over about 2 MiB). `{run_dir}`
 * counts as the longest path it may become.
 */
const MAX_WORDS = 1000;
const MAX_WORD_BYTES = 64 * 1024;
const MAX_ARGV_BYTES = 256 * 1024;
const MAX_PATH_BYTES = 4096;
const RUN_DIR = "{run_dir}";

export interface JobStep {
  readonly argv: readonly string[];
  readonly input?: Readonly<Record<string, unknown>>;
  readonly continue_on_error: boolean;
  /** Its time limit: its own timeout_seconds, else the job's, else the default. */
  readonly limitMs: number;
}

export interface Job {
  readonly id: string;
  readonly steps: readonly JobStep[];
  /** The run dir every step shares, resolved against the job file's folder; null: the harness's own. */
  readonly runDir: string | null;
  /** `secrets_url`: the platform's secret sink, where register-once secrets go (contract §10), signed like the report; never the report. */
  readonly delivery: { readonly url: string; readonly secrets_url?: string } | null;
  /** The job file's folder: steps run there, so their relative paths mean what the job's author meant. */
  readonly base: string;
  /** Between TERM and KILL when a step's process group is ended. */
  readonly graceMs: number;
  /** Derived from the job's id and steps: the same job run again is the same event, which the receiver stores once. */
  readonly eventId: string;
}

const bad = (path: string, what: string, got?: unknown): KitError =>
  new KitError("INVALID_INPUT", `the job's ${path} ${what}`, {
    ...(got === undefined ? {} : { got }),
    hint: "fix the job file; see `harness job execute --help` for its shape",
  });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function secondsOf(raw: unknown, path: string, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== "number" || !Number.isFinite(raw) || raw <= 0 || raw > max)
    throw bad(path, `must be a number of seconds above 0, at most ${max}`, raw);
  return raw;
}

const STEP_FIELDS = ["argv", "input", "continue_on_error", "timeout_seconds"];

/** Every word of a step's argv as a process can be started with it: no NUL byte, each word and the whole bounded. */
function checkWords(argv: readonly string[], at: string): void {
  if (argv.length > MAX_WORDS)
    throw bad(`${at}.argv`, `has ${argv.length} words; a step may have at most ${MAX_WORDS}`);
  let total = 0;
  for (const [j, word] of argv.entries()) {
    if (word.includes("\0"))
      throw bad(`${at}.argv[${j}]`, "holds a NUL byte, which no command-line word can carry", word);
    const fills = word.split(RUN_DIR).length - 1;
    const bytes = Buffer.byteLength(word, "utf8") + fills * (MAX_PATH_BYTES - RUN_DIR.length);
    if (bytes > MAX_WORD_BYTES)
      throw bad(
        `${at}.argv[${j}]`,
        `is ${bytes} bytes${fills ? ` (each ${RUN_DIR} counted as a path of ${MAX_PATH_BYTES})` : ""}; a word may be at most ${MAX_WORD_BYTES}`,
      );
    total += bytes + 1;
  }
  if (total > MAX_ARGV_BYTES)
    throw bad(`${at}.argv`, `is ${total} bytes in all; a step's argv may be at most ${MAX_ARGV_BYTES}`);
}

function stepOf(raw: unknown, i: number, jobSeconds: number, tools: readonly string[]): JobStep {
  const at = `steps[${i}]`;
  if (!isObject(raw)) throw bad(at, "must be an object { argv, input?, continue_on_error?, timeout_seconds? }");
  for (const key of Object.keys(raw))
    if (!STEP_FIELDS.includes(key)) throw bad(`${at}.${key}`, `is not a step field (${STEP_FIELDS.join(", ")})`, key);
  const { argv, input, continue_on_error } = raw;
  if (!Array.isArray(argv) || argv.length < 2 || !argv.every((a) => typeof a === "string"))
    throw bad(
      `${at}.argv`,
      'must be an array of strings: a fleet tool and its command, e.g. ["seo", "audit"] (never a shell string)',
      argv,
    );
  checkWords(argv, at);
  if (!tools.includes(argv[0]!))
    throw bad(
      `${at}.argv[0]`,
      tools.length
        ? `must be one of the fleet's tools: ${tools.join(", ")}`
        : "must be a fleet tool, and none is beside the harness",
      argv[0],
    );
  if (input !== undefined && !isObject(input))
    throw bad(`${at}.input`, "must be a JSON object: the step's flags, given on stdin with --params -", input);
  if (input !== undefined && argv.includes("--params")) throw bad(`${at}`, "gives both input and --params; give one");
  if (continue_on_error !== undefined && typeof continue_on_error !== "boolean")
    throw bad(`${at}.continue_on_error`, "must be true or false", continue_on_error);
  const limitMs = Math.round(
    secondsOf(raw.timeout_seconds, `${at}.timeout_seconds`, jobSeconds, MAX_STEP_SECONDS) * 1000,
  );
  return { argv, ...(input === undefined ? {} : { input }), continue_on_error: continue_on_error === true, limitMs };
}

function deliveryOf(raw: unknown): Job["delivery"] {
  if (raw === undefined || raw === null) return null;
  const web = (u: unknown): u is string =>
    typeof u === "string" && URL.canParse(u) && /^https?:$/.test(new URL(u).protocol);
  if (!isObject(raw) || !web(raw.url))
    throw bad("delivery", 'must be { "url": "https://…" }: where the signed report is posted', raw);
  for (const key of Object.keys(raw))
    if (key !== "url" && key !== "secrets_url")
      throw bad(`delivery.${key}`, "is not a delivery field (url, secrets_url)", key);
  if (raw.secrets_url !== undefined && !web(raw.secrets_url))
    throw bad("delivery.secrets_url", "must be an http(s) URL: the platform's secret sink", raw.secrets_url);
  return { url: raw.url, ...(raw.secrets_url === undefined ? {} : { secrets_url: raw.secrets_url }) };
}

const JOB_FIELDS = ["id", "steps", "run_dir", "delivery", "timeout_seconds", "grace_seconds"];

/** `evt-` and a digest of the job id and what its steps run: a re-run (after a lost delivery) is the same event, not a second one. */
export function eventIdOf(id: string, steps: readonly JobStep[]): string {
  const what = JSON.stringify([id, steps.map((s) => [s.argv, s.input ?? null, s.continue_on_error])]);
  return `evt-${new Bun.CryptoHasher("sha256").update(what).digest("hex").slice(0, 32)}`;
}

/** The job in `text`, read from the file at `path`; its steps may run `tools` (the fleet's: fleetTools()). */
export function parseJob(text: string, path: string, tools: readonly string[]): Job {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new KitError("INVALID_INPUT", `${path} is not JSON: ${(e as Error).message}`, {
      hint: "a job is one JSON object: { id, steps, run_dir?, delivery? }",
    });
  }
  if (!isObject(raw)) throw bad("document", "must be one JSON object: { id, steps, run_dir?, delivery? }");
  for (const key of Object.keys(raw))
    if (!JOB_FIELDS.includes(key)) throw bad(key, `is not a job field (${JOB_FIELDS.join(", ")})`, key);
  if (typeof raw.id !== "string" || !JOB_ID.test(raw.id))
    throw bad("id", "must be 1–128 letters, digits, '.', '_' or '-', starting with a letter or digit", raw.id);
  if (!Array.isArray(raw.steps) || raw.steps.length === 0 || raw.steps.length > MAX_STEPS)
    throw bad(
      "steps",
      `must be a list of 1 to ${MAX_STEPS} steps`,
      Array.isArray(raw.steps) ? raw.steps.length : raw.steps,
    );
  if (
    raw.run_dir !== undefined &&
    (typeof raw.run_dir !== "string" ||
      raw.run_dir === "" ||
      raw.run_dir.includes("\0") ||
      Buffer.byteLength(raw.run_dir) > MAX_PATH_BYTES)
  )
    throw bad("run_dir", `must be a folder path (no NUL byte, at most ${MAX_PATH_BYTES} bytes)`, raw.run_dir);
  const base = dirname(resolve(path));
  const jobSeconds = secondsOf(raw.timeout_seconds, "timeout_seconds", DEFAULT_STEP_SECONDS, MAX_STEP_SECONDS);
  const steps = raw.steps.map((s, i) => stepOf(s, i, jobSeconds, tools));
  return {
    id: raw.id,
    steps,
    runDir: typeof raw.run_dir === "string" ? resolve(base, raw.run_dir) : null,
    delivery: deliveryOf(raw.delivery),
    base,
    graceMs: Math.round(secondsOf(raw.grace_seconds, "grace_seconds", DEFAULT_GRACE_SECONDS, 600) * 1000),
    eventId: eventIdOf(raw.id, steps),
  };
}
