/**
 * An error envelope (contract §4, §5): a SCREAMING_SNAKE code, one exit class
 * per code, and (kit extension describe-schema) a code the tool declares.
 */
import { KNOWN_CODE_EXITS, SCREAMING_SNAKE } from "./contract.ts";
import type { RunResult } from "./sandbox.ts";
import type { CommandDoc, Envelope } from "./schemas.ts";
import { classOf, holds, type Subject } from "./subject.ts";

/**
 * The class of a code: fixed by the contract and SPEC for some, by --describe's
 * error_codes where the tool publishes them (read on their own, whether or not
 * the rest of the kit's fields are there), and otherwise by the first exit
 * seen with it, never 0: one code never exits two ways, and an error never
 * exits as a success (contract §5).
 */
function inspectExit(s: Subject, r: RunResult, code: string): void {
  const f = s.findings;
  if (r.exit === 0) {
    f.fail("errors.exit-class", `ok is false (${code}) but the exit is 0, which means success (contract §5)`, r);
    return;
  }
  const declaredExit = s.doc?.error_codes?.[code]?.exit;
  const seen = s.exits.get(code);
  if (seen === undefined && r.exit !== null) s.exits.set(code, r.exit);
  const expected = KNOWN_CODE_EXITS[code] ?? declaredExit ?? seen ?? undefined;
  const by =
    KNOWN_CODE_EXITS[code] !== undefined
      ? " (fixed by the contract)"
      : declaredExit !== undefined
        ? " (by --describe's error_codes)"
        : " (its exit when first seen)";
  if (expected === undefined) f.exercised("errors.exit-class");
  else f.expect("errors.exit-class", r.exit === expected, `${code} exited ${r.exit}; its class is ${expected}${by}`, r);
  if (declaredExit !== undefined && KNOWN_CODE_EXITS[code] !== undefined)
    f.expect(
      "errors.exit-class",
      declaredExit === KNOWN_CODE_EXITS[code],
      `--describe gives ${code} exit ${declaredExit}; the contract gives ${KNOWN_CODE_EXITS[code]}`,
      r,
    );
}

/** contract §4: retryable is false for usage and policy errors (exit 2 and 5): the same invocation cannot succeed. */
function inspectRetryable(s: Subject, r: RunResult, env: Envelope): void {
  const { code, retryable } = env.error!;
  const cls = classOf(s, code, r.exit);
  if (cls !== 2 && cls !== 5) return s.findings.exercised("errors.retryable");
  s.findings.expect(
    "errors.retryable",
    retryable === false,
    `${code} is a ${cls === 2 ? "usage error (exit 2)" : "policy rejection (exit 5)"} but says retryable: true; retrying the same invocation cannot succeed`,
    r,
  );
}

/** Kit extension describe-schema: the code is in error_codes and among the command's; a missing variable is declared. */
function inspectDeclared(s: Subject, r: RunResult, env: Envelope, command: CommandDoc | null): void {
  const f = s.findings;
  const doc = s.doc;
  const code = env.error!.code;
  // A malformed code is errors.code-format's finding; whether it is declared is not asked of it too.
  if (!SCREAMING_SNAKE.test(code) || !doc || !holds(s, "describe-schema")) return;
  // A tool may answer a code it never declared as INTERNAL naming that code (detail.undeclared.code):
  // the answer is honest, the tool is not; it fails here as the code itself would.
  const undeclared = (env.error!.detail?.undeclared as { code?: unknown } | undefined)?.code;
  if (code === "INTERNAL" && typeof undeclared === "string")
    f.fail(
      "errors.declared",
      `${command ? `'${command.name}'` : "the tool"} raised ${undeclared}, which --describe does not declare${command ? " for it" : ""} (answered as INTERNAL)`,
      r,
    );
  if (doc.error_codes && doc.error_codes[code] === undefined)
    f.fail("errors.declared", `error code ${code} is not in --describe's error_codes`, r);
  if (command?.errors)
    f.expect(
      "errors.declared",
      command.errors.includes(code),
      `${code} is not among the codes --describe declares for '${command.name}' (${command.errors.join(", ")})`,
      r,
    );
  if (code !== "MISSING_ENV") return;
  const declared = new Set([...doc.env, ...(command?.env ?? [])].map((e) => e.name));
  const named =
    (env.error!.detail?.variable as string | undefined) ?? env.error!.message.match(/\b[A-Z][A-Z0-9_]{2,}\b/)?.[0];
  f.expect(
    "identity.env-declared",
    named !== undefined && declared.has(named),
    `asks for ${named ?? "an unnamed variable"}, which --describe does not declare`,
    r,
  );
}

export function inspectError(s: Subject, r: RunResult, env: Envelope, command: CommandDoc | null): void {
  const code = env.error!.code;
  s.findings.expect(
    "errors.code-format",
    SCREAMING_SNAKE.test(code),
    `error code '${code}' is not SCREAMING_SNAKE (expected e.g. NOT_FOUND)`,
    r,
  );
  inspectExit(s, r, code);
  inspectRetryable(s, r, env);
  inspectDeclared(s, r, env, command);
}
