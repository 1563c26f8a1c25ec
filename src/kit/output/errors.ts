/**
 * The fleet's error codes: one closed table, each code with the exit class it
 * belongs to (contract §5) and whether retrying the same call could succeed
 * (contract §4). The TypeScript type is derived from the table, so a code that
 * is not in it cannot be thrown.
 */

/** contract §5: the exit classes, by name. */
export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  input: 3,
  upstream: 4,
  policy: 5,
  cancelled: 130,
} as const;

export type ExitClass = keyof typeof EXIT;

interface CodeSpec {
  readonly exit: ExitClass;
  readonly retryable: boolean;
  readonly summary: string;
  /** Any command can raise it, whatever it declares: the kit itself does. */
  readonly kit: boolean;
}

const code = (exit: ExitClass, summary: string, opts: { retryable?: boolean; kit?: boolean } = {}): CodeSpec => ({
  exit,
  retryable: opts.retryable ?? false,
  summary,
  kit: opts.kit ?? false,
});

export const ERROR_CODES = {
  INTERNAL: code("internal", "an unexpected failure inside the tool; report it", { kit: true }),

  USAGE: code("usage", "the invocation is malformed (an unexpected argument)", { kit: true }),
  UNKNOWN_COMMAND: code("usage", "no such command; `allowed` lists the commands", { kit: true }),
  UNKNOWN_FLAG: code("usage", "no such flag for this command; `allowed` lists the flags", { kit: true }),
  MISSING_FLAG: code("usage", "a required flag is absent", { kit: true }),
  INVALID_VALUE: code("usage", "a flag's value has the wrong type or shape", { kit: true }),
  INVALID_ENUM: code("usage", "a flag's value is outside its set; `allowed` lists the set", { kit: true }),
  OUT_OF_RANGE: code("usage", "a number is outside its range; `allowed` gives min and max", { kit: true }),
  CONFLICTING_FLAGS: code("usage", "flags that cannot be given together", { kit: true }),
  INVALID_PARAMS: code("usage", "the --params document is not a JSON object", { kit: true }),
  INVALID_CURSOR: code("usage", "the --cursor does not belong to this query", { kit: true }),
  INVALID_FIELDS: code("usage", "a --fields path is not in the result schema; `allowed` lists them", { kit: true }),
  INPUT_REQUIRED: code("usage", "a value would have been asked for, but prompting is off", { kit: true }),

  MISSING_ARTIFACT: code("input", "a pipeline stage's input artifact is absent; the hint names the stage to run"),
  INVALID_ARTIFACT: code("input", "a run-dir artifact is unreadable or from another stage"),
  INVALID_INPUT: code("input", "an input file, folder or document is unusable"),
  NOT_FOUND: code("input", "the addressed item does not exist"),
  MISSING_ENV: code("input", "a required environment variable is unset; the hint names it", { kit: true }),
  CREDENTIAL_REJECTED: code("input", "a credential from the environment was refused by the service; the hint names it"),
  PRECONDITION_FAILED: code("input", "the world no longer matches what the plan expected"),
  CONFLICT: code("input", "the request contradicts recorded state (same key, different params)"),
  PLAN_INVALID: code("input", "the plan document is malformed or failed while planning"),
  PLAN_FAILED: code("input", "the plan failed while planning and can never be applied; plan again"),
  PLAN_TAMPERED: code("input", "the plan's checksum does not match its contents"),
  PLAN_EXPIRED: code("input", "the plan is past its expiry; plan again"),
  POLICY_STALE: code("input", "the plan was judged against a policy version that is no longer current"),
  ROOT_CHANGED: code(
    "input",
    "the folder a plan acts on is no longer the one its approval names (swapped for a link, moved, or out of the policy's roots)",
  ),

  UPSTREAM_ERROR: code("upstream", "an external service failed", { retryable: true }),
  UPSTREAM_TIMEOUT: code("upstream", "an external service did not answer in time", { retryable: true }),
  RATE_LIMITED: code("upstream", "an external service asked us to slow down", { retryable: true }),
  NETWORK_ERROR: code("upstream", "a connection could not be made", { retryable: true }),
  IN_PROGRESS: code("upstream", "another process holds this item; retry after its lease", { retryable: true }),
  CREDENTIAL_EXPIRED: code(
    "upstream",
    "an injected credential is expired (or expires before the command's maximum duration) and cannot be refreshed; re-dispatch the job with fresh credentials",
  ),
  AUTH_FAILED: code(
    "upstream",
    "a credential-bound service refused the credential, refreshed once; re-dispatch the job with fresh credentials",
  ),

  POLICY_DENIED: code("policy", "a policy forbids this; do not retry"),
  CONFIRMATION_REQUIRED: code("policy", "a human confirmation is needed; pass --yes to give it", { kit: true }),
  APPROVAL_REQUIRED: code("policy", "the gate requires an approval for this plan"),
  APPROVAL_INVALID: code(
    "policy",
    "the plan's approval signature does not verify with the key of whoever approved it (the gate, or a person the policy names)",
  ),
  APPROVAL_MISMATCH: code("policy", "the approval was given for a different plan, policy version or expiry"),

  CANCELLED: code("cancelled", "interrupted by a signal", { retryable: true, kit: true }),
} as const satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * contract §10: the codes that retrying the same job cannot fix and fresh
 * credentials can: the platform re-dispatches the job (the ledger keeps it
 * from re-causing what already happened), where a retryable code is retried.
 */
export const REDISPATCH_CODES: ReadonlySet<string> = new Set<ErrorCode>(["CREDENTIAL_EXPIRED", "AUTH_FAILED"]);

export const exitCodeOf = (c: ErrorCode): number => EXIT[ERROR_CODES[c].exit];

export interface ErrorFields {
  hint?: string;
  detail?: Record<string, unknown>;
  allowed?: unknown;
  got?: unknown;
  retryable?: boolean;
  cause?: unknown;
}

/** The one error class: a code from the table plus the fields that teach (contract §4). */
export class KitError extends Error {
  override readonly name = "KitError";
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly detail?: Record<string, unknown>;
  readonly allowed?: unknown;
  readonly got?: unknown;
  readonly retryable: boolean;

  constructor(errorCode: ErrorCode, message: string, fields: ErrorFields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.code = errorCode;
    this.hint = fields.hint;
    this.detail = fields.detail;
    this.allowed = fields.allowed;
    this.got = fields.got;
    this.retryable = fields.retryable ?? ERROR_CODES[errorCode].retryable;
  }

  get exitCode(): number {
    return exitCodeOf(this.code);
  }
}

export const isKitError = (e: unknown): e is KitError => e instanceof KitError;

/** The wire form of an error (contract §4): only the fields that are set. */
export interface ErrorObject {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  hint?: string;
  allowed?: unknown;
  got?: unknown;
  detail?: Record<string, unknown>;
}

/**
 * `redact` runs before anything is cut (the message, the hint, the echo of
 * `got`): a secret cut in half would no longer match, and would leave half unmasked.
 */
export function toErrorObject(e: KitError, redact: (text: string) => string = (t) => t): ErrorObject {
  const out: ErrorObject = {
    code: e.code,
    message: bounded(redact(oneLine(e.message)), MAX_MESSAGE),
    retryable: e.retryable,
  };
  if (e.hint !== undefined) out.hint = bounded(redact(oneLine(e.hint)), MAX_MESSAGE);
  if (e.allowed !== undefined) out.allowed = e.allowed;
  if (e.got !== undefined) out.got = echo(e.got, redact);
  if (e.detail !== undefined) out.detail = e.detail;
  return out;
}

/** An error echoes what it was given, but never a whole megabyte of it back into the caller's context. */
const MAX_MESSAGE = 1000;
const MAX_ECHO = 200;

const bounded = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/** `got` as given when it is small; otherwise its start (redacted first), as a string, marked as cut. */
function echo(got: unknown, redact: (text: string) => string): unknown {
  if (typeof got === "string") return got.length <= MAX_ECHO ? got : bounded(redact(got), MAX_ECHO);
  if (got === null || typeof got !== "object") return got;
  let text: string;
  try {
    text = JSON.stringify(got);
  } catch {
    return "(a value too deep to show)";
  }
  return text.length <= MAX_ECHO ? got : bounded(redact(text), MAX_ECHO);
}

/** contract §4: `message` is one line. */
const oneLine = (s: string): string => s.replace(/\s*[\r\n]+\s*/g, " ").trim();

/**
 * What the operating system said, as the contract's classes: a file system
 * that refuses a write, a link loop or a path that is not what it should be is
 * the input's fault (exit 3); running out of space or descriptors may pass (exit 4).
 */
const SYSTEM_ERRORS: Readonly<Record<string, { code: ErrorCode; says: string; hint: string }>> = {
  EROFS: {
    code: "INVALID_INPUT",
    says: "the file system is read-only",
    hint: "give a writable folder (--run-dir, TMPDIR, or the target's folder)",
  },
  EACCES: { code: "INVALID_INPUT", says: "permission denied", hint: "give a folder this user may read and write" },
  EPERM: { code: "INVALID_INPUT", says: "operation not permitted", hint: "give a folder this user may read and write" },
  ELOOP: {
    code: "INVALID_INPUT",
    says: "a symbolic link loop",
    hint: "remove the link loop, or point at the files themselves",
  },
  ENAMETOOLONG: { code: "INVALID_INPUT", says: "a path too long", hint: "use a shorter path" },
  ENOTDIR: {
    code: "INVALID_INPUT",
    says: "a path goes through something that is not a folder",
    hint: "check the path",
  },
  EISDIR: { code: "INVALID_INPUT", says: "a folder where a file was expected", hint: "check the path" },
  ENOENT: { code: "NOT_FOUND", says: "no such file or folder", hint: "check the path" },
  ENOSPC: { code: "UPSTREAM_ERROR", says: "no space left on the device", hint: "free some space, then re-run" },
  EDQUOT: { code: "UPSTREAM_ERROR", says: "the disk quota is exceeded", hint: "free some space, then re-run" },
  EMFILE: { code: "UPSTREAM_ERROR", says: "too many open files", hint: "re-run when fewer files are open" },
  ENFILE: { code: "UPSTREAM_ERROR", says: "too many open files on the system", hint: "re-run later" },
  EIO: { code: "UPSTREAM_ERROR", says: "an input/output error", hint: "check the device, then re-run" },
  EBUSY: { code: "UPSTREAM_ERROR", says: "the resource is busy", hint: "re-run later" },
};

/** A system error as a teaching error, or undefined when it is not one the table knows. */
export function fromSystemError(e: unknown): KitError | undefined {
  const sys = e as NodeJS.ErrnoException | undefined;
  const known = typeof sys?.code === "string" ? SYSTEM_ERRORS[sys.code] : undefined;
  if (!known) return undefined;
  const where = sys!.path ? ` (${sys!.syscall ? `${sys!.syscall} ` : ""}${sys!.path})` : "";
  return new KitError(known.code, `${known.says}${where}`, {
    hint: known.hint,
    detail: { errno: sys!.code },
    cause: e,
  });
}

/** Anything thrown becomes a KitError; a system error its class; what was neither is INTERNAL. */
export function asKitError(e: unknown): KitError {
  if (isKitError(e)) return e;
  const system = fromSystemError(e);
  if (system) return system;
  const message = e instanceof Error ? e.message : String(e);
  return new KitError("INTERNAL", `unexpected error: ${message || "unknown"}`, {
    hint: "this is a bug in the tool; report it with the invocation that caused it",
    cause: e,
  });
}
