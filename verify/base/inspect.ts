/**
 * The rules every single run must keep, whatever it was for: no hang, no
 * ANSI, no stack trace, no canary; exactly one envelope of the right shape
 * whose exit code agrees with its error code (contract §2, §4, §5).
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import * as v from "valibot";
import { ANSI, EXIT_CODES, STACK_TRACE } from "./contract.ts";
import { inspectBound } from "./bounded.ts";
import { checkSecretsOut } from "./secrets-out.ts";
import { inspectError } from "./inspect-error.ts";
import type { RunResult } from "./sandbox.ts";
import { type CommandDoc, Envelope, explain } from "./schemas.ts";
import type { Subject } from "./subject.ts";

export const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const compiled = new WeakMap<object, ReturnType<typeof ajv.compile>>();

export function validatorFor(schema: Record<string, unknown>) {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/** The rules that hold for stdout and stderr of any run, envelope or not. */
export function inspectStreams(s: Subject, r: RunResult): boolean {
  const f = s.findings;
  const read = r.stdinRead > 0 ? `; it read ${r.stdinRead} byte(s) from stdin, which is not a terminal` : "";
  if (r.timedOut) {
    f.fail(
      "noninteractive.no-hang",
      `killed after ${Math.round(r.ms)} ms without finishing (a hang or a prompt)${read}`,
      r,
    );
    return false;
  }
  // contract §3: under --no-input any prompt is an error, and off a terminal nothing prompts: no read of stdin at all.
  if (r.stdinRead > 0 && r.run.argv.includes("--no-input"))
    f.fail(
      "noninteractive.no-hang",
      `it read ${r.stdinRead} byte(s) from stdin under --no-input (a prompt off a terminal)`,
      r,
    );
  if (r.leftover)
    f.fail(
      "noninteractive.no-hang",
      "it exited leaving a process of its own running (or its stdout/stderr held open): a caller reading its output to the end would wait without limit",
      r,
    );
  f.exercised("noninteractive.no-hang");
  f.expect(
    "output.no-ansi",
    !ANSI.test(r.stdout) && !ANSI.test(r.stderr),
    `ANSI escape on ${ANSI.test(r.stdout) ? "stdout" : "stderr"}: ${JSON.stringify((ANSI.test(r.stdout) ? r.stdout : r.stderr).match(ANSI)?.[0])}`,
    r,
  );
  f.expect(
    "output.no-stack",
    !STACK_TRACE.test(r.stdout),
    `stack trace on stdout: ${JSON.stringify(r.stdout.match(STACK_TRACE)?.[0])}`,
    r,
  );
  const leaked = Object.entries(s.sandbox.canaries).find(
    ([, value]) => r.stdout.includes(value) || r.stderr.includes(value),
  );
  f.expect(
    "identity.canary",
    !leaked,
    `the value of ${leaked?.[0]} appears on ${leaked && r.stdout.includes(leaked[1]) ? "stdout" : "stderr"}`,
    r,
  );
  f.expect(
    "errors.exit-class",
    r.exit !== null && (EXIT_CODES as readonly number[]).includes(r.exit),
    `exit ${r.exit ?? r.signal} is not one of ${EXIT_CODES.join(", ")}`,
    r,
  );
  return true;
}

/**
 * stdout as exactly one JSON object, or null (and a finding). contract §2 asks
 * for exactly one object, not one line: a pretty-printed envelope is one.
 */
export function parseStdout(s: Subject, r: RunResult): unknown {
  const out = r.stdout;
  let value: unknown;
  let parsed = false;
  try {
    value = JSON.parse(out);
    parsed = true;
  } catch {
    parsed = false;
  }
  const isObject = parsed && value !== null && typeof value === "object" && !Array.isArray(value);
  s.findings.expect(
    "output.one-json",
    isObject,
    out.trim() === ""
      ? "stdout is empty"
      : !parsed
        ? "stdout is not exactly one JSON document (something else before, after or between)"
        : "stdout is not a JSON object",
    r,
  );
  return isObject ? value : null;
}

/** The envelope names the tool, contract version and command the run was for. */
function inspectNames(s: Subject, r: RunResult, env: Envelope, command: CommandDoc | null): void {
  const f = s.findings;
  const doc = s.doc;
  if (doc) {
    f.expect("envelope.shape", env.tool === doc.tool, `tool is '${env.tool}', --describe says '${doc.tool}'`, r);
    f.expect(
      "envelope.shape",
      env.contract_version === doc.contract_version,
      `contract_version ${env.contract_version}, --describe says ${doc.contract_version}`,
      r,
    );
  }
  if (command)
    f.expect(
      "envelope.shape",
      env.command === command.name,
      `command is '${env.command}', the invocation was '${command.name}'`,
      r,
    );
}

/** A success: exit 0, and a whole result (not a --fields projection) held to the command's schemas. */
function inspectSuccess(s: Subject, r: RunResult, env: Envelope, command: CommandDoc | null): void {
  const f = s.findings;
  f.expect("errors.exit-class", r.exit === 0, `ok is true but the exit is ${r.exit}`, r);
  const projected = r.run.argv.some((a) => a === "--fields" || a.startsWith("--fields="));
  const dataIsObject = env.data !== null && typeof env.data === "object" && !Array.isArray(env.data);
  if (!command || !dataIsObject) return;
  inspectBound(s, r, env, command);
  if (projected) return;
  if (command.output_schema) {
    const validate = validatorFor(command.output_schema);
    f.expect(
      "envelope.result-schema",
      validate(env.data) === true,
      `data does not match the output schema: ${ajv.errorsText(validate.errors)}`,
      r,
    );
  }
  f.expect(
    "envelope.result-schema",
    env.meta.schema === command.result_schema,
    `meta.schema is ${env.meta.schema}, --describe says ${command.result_schema}`,
    r,
  );
}

/** Every envelope: its shape, ok ⟺ data/error, and an exit that agrees with the code. */
export function inspectEnvelope(s: Subject, r: RunResult, command: CommandDoc | null): Envelope | null {
  if (!inspectStreams(s, r)) return null;
  const value = parseStdout(s, r);
  if (value === null) return null;
  const f = s.findings;
  const parsed = v.safeParse(Envelope, value);
  if (!parsed.success) {
    f.fail("envelope.shape", `not an envelope: ${explain(parsed.issues).join("; ")}`, r);
    return null;
  }
  f.exercised("envelope.shape");
  const env = parsed.output;
  checkSecretsOut(s, r, env, command);
  inspectNames(s, r, env, command);
  const dataIsObject = env.data !== null && typeof env.data === "object" && !Array.isArray(env.data);
  f.expect(
    "envelope.ok-iff",
    env.ok === (dataIsObject && env.error === null) && (env.ok || env.error !== null),
    `ok is ${env.ok} with data ${JSON.stringify(env.data)?.slice(0, 60)} and error ${env.error ? env.error.code : "null"}`,
    r,
  );
  if (env.ok) inspectSuccess(s, r, env, command);
  else inspectError(s, r, env, command);
  return env;
}
