/**
 * contract §9: --describe says which flags are required, and Maestro routes
 * on it. A flag declared optional that the command cannot run without is a
 * lie an agent pays for with a failed call: the command's required flags
 * alone (a write with --dry-run) must not be refused for want of it.
 */
import { inspectEnvelope } from "../base/inspect.ts";
import type { CommandDoc } from "../base/schemas.ts";
import { classOf, type Subject } from "../base/subject.ts";
import { probe } from "./usage.ts";
import { requiredArgv } from "./values.ts";

/** A message that says something is missing or required, rather than wrong. */
const ASKS_FOR = /\b(requir\w*|missing|must (be )?(given|set|passed)|needs?|without)\b/i;

export async function checkOptionalFlags(s: Subject, c: CommandDoc): Promise<void> {
  const optional = c.flags.filter((x) => !x.required);
  if (optional.length === 0) return;
  const argv = [...requiredArgv(c), ...(c.rw === "write" ? ["--dry-run"] : [])];
  const r = await probe(s, c, "its required flags alone", [...argv, "--no-input"]);
  const env = inspectEnvelope(s, r, c);
  if (!env) return;
  const e = env.error;
  if (!e || classOf(s, e.code, r.exit) !== 2) return s.findings.exercised("describe.required");
  // The one optional flag the refusal names, as wanted; named with another way (", or set X"), it is one of a choice, not a lie.
  const named = optional.filter(
    (x) => new RegExp(`--${x.name}(?![a-z0-9-])`).test(e.message) || e.got === `--${x.name}` || e.got === x.name,
  );
  s.findings.expect(
    "describe.required",
    !(
      named.length === 1 &&
      !/\b(or|either)\b/i.test(e.message) &&
      (ASKS_FOR.test(e.message) || /MISSING|REQUIRED/.test(e.code))
    ),
    `'${c.name}' with its required flags alone (${argv.join(" ") || "none"}) is refused for want of --${named[0]?.name}, which --describe declares optional: ${e.code}: ${e.message}`,
    r,
  );
}
