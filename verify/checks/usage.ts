/**
 * Bad input (contract §4, §5): an unknown flag, a missing required flag, a
 * value of the wrong type, outside its enum or its range, --limit 0: each a
 * usage error (exit 2) whose error teaches; with the kit's codes (extension
 * error-codes), also its code.
 */
import { inspectEnvelope } from "../base/inspect.ts";
import type { CheckId } from "../base/report.ts";
import type { CommandDoc, Envelope } from "../base/schemas.ts";
import { classOf, holds, type Subject } from "../base/subject.ts";
import { props, requiredArgv, words } from "./values.ts";

export const probe = (s: Subject, c: CommandDoc, label: string, argv: string[], extra: { stdin?: string } = {}) =>
  s.sandbox.run({ label: `${c.name}: ${label}`, argv: [...words(c), ...argv], ...extra });

/**
 * A bad input must be a usage error (exit 2, contract §5) with an error that
 * teaches (contract §4); with the kit's codes (extension error-codes), also
 * its code. A run with no envelope, or whose exit disagrees with its code, is
 * already a finding of the rules every run keeps, and one cause is reported once.
 */
async function expectUsage(
  s: Subject,
  c: CommandDoc,
  id: CheckId,
  label: string,
  argv: string[],
  kitCode: string,
  teaches: (env: Envelope) => string | null,
  kitMore: (env: Envelope) => string | null = () => null,
): Promise<void> {
  const r = await probe(s, c, label, [...argv, "--no-input"]);
  const env = inspectEnvelope(s, r, c);
  if (!env) return;
  // Judged by the code's class: an exit that disagrees with its own code is errors.exit-class's finding, reported once.
  const usage = !env.ok && classOf(s, env.error!.code, r.exit) === 2;
  if (
    !s.findings.expect(
      id,
      usage,
      `${label}: expected a usage error (exit 2), got ${env.error?.code ?? "success"} (exit ${r.exit})`,
      r,
    )
  )
    return;
  const problem = teaches(env);
  s.findings.expect(id, problem === null, `${label}: ${problem}`, r);
  if (!holds(s, "error-codes")) return;
  if (
    !s.findings.expect(
      "errors.kit-codes",
      env.error!.code === kitCode,
      `${label}: expected ${kitCode}, got ${env.error!.code}`,
      r,
    )
  )
    return;
  const more = kitMore(env);
  s.findings.expect("errors.kit-codes", more === null, `${label}: ${more}`, r);
}

/** Whether the error's message names the flag (with or without its dashes): null when it does, else the problem. */
const unnamed = (env: Envelope, flag: string): string | null =>
  env.error!.message.includes(flag) ? null : `the message does not name ${flag}: ${env.error!.message}`;

/** An unknown flag, each required flag missing, and each typed flag given a value of the wrong type. */
async function checkFlagErrors(s: Subject, c: CommandDoc): Promise<void> {
  await expectUsage(
    s,
    c,
    "errors.unknown-flag",
    "unknown flag",
    [...requiredArgv(c), "--zz-not-a-flag", "1"],
    "UNKNOWN_FLAG",
    () => null,
    (env) => {
      const allowed = env.error!.allowed;
      if (!Array.isArray(allowed) || allowed.length === 0) return "allowed does not list the valid flags";
      const listed = new Set(allowed.map((a) => String(a).replace(/^--/, "")));
      const absent = c.flags.map((x) => x.name).filter((n) => !listed.has(n));
      return absent.length ? `allowed lacks ${absent.map((n) => `--${n}`).join(", ")}` : null;
    },
  );
  for (const flag of c.flags.filter((x) => x.required))
    await expectUsage(
      s,
      c,
      "errors.required",
      `missing --${flag.name}`,
      requiredArgv(c, [flag.name]),
      "MISSING_FLAG",
      (env) => unnamed(env, flag.name),
    );
  for (const flag of c.flags.filter((x) => x.type === "integer" || x.type === "number" || x.type === "boolean")) {
    const bad = flag.type === "boolean" ? [`--${flag.name}=maybe`] : [`--${flag.name}`, "not-a-number"];
    await expectUsage(
      s,
      c,
      "errors.type",
      `--${flag.name} of the wrong type`,
      [...requiredArgv(c, [flag.name]), ...bad],
      "INVALID_VALUE",
      (env) => unnamed(env, flag.name),
    );
  }
  const untyped = c.flags.filter((x) => x.type === null);
  if (untyped.length)
    s.findings.note(
      "errors.type",
      `not probed: ${untyped.map((x) => `--${x.name} ('${x.rawType}')`).join(", ")}, types verify does not know`,
    );
}

/** contract §6: --limit 0, or below 0, is a usage error (a range rejection with allowed and got), never "unbounded" nor a count from the end. */
async function checkLimitZero(s: Subject, c: CommandDoc): Promise<void> {
  for (const bad of [["--limit", "0"], ["--limit=-1"]]) {
    const label = bad.join(" ");
    const r = await probe(s, c, label, [...requiredArgv(c), ...bad, "--no-input"]);
    const env = inspectEnvelope(s, r, c);
    if (
      env &&
      s.findings.expect(
        "lists.limit-zero",
        r.exit === 2 && !env.ok,
        `${label} gave exit ${r.exit} (${env?.error?.code ?? "success"}), expected exit 2: it is no bound`,
        r,
      )
    )
      s.findings.expect(
        "errors.range",
        env.error!.allowed !== undefined && env.error!.got !== undefined,
        `${label}: the range rejection has no ${env.error!.allowed === undefined ? "allowed" : "got"}: ${JSON.stringify(env.error)}`,
        r,
      );
  }
}

/** Each kind of bad input, answered with exit 2 and an error that teaches. */
export async function checkBadInput(s: Subject, c: CommandDoc): Promise<void> {
  await checkFlagErrors(s, c);
  for (const flag of c.flags.filter((x) => x.type === "enum")) await checkEnum(s, c, flag);
  await checkRanges(s, c);
  if (c.isList) await checkLimitZero(s, c);
}

/**
 * contract §4 for an enum: its values from --describe where listed; else the
 * contract's own loop: a bad value's error enumerates them, and one of those
 * is then accepted.
 */
async function checkEnum(s: Subject, c: CommandDoc, flag: CommandDoc["flags"][number]): Promise<void> {
  const got = "zz-not-in-the-set";
  const argv = [...requiredArgv(c, [flag.name]), `--${flag.name}`, got];
  let taught: string[] | null = null;
  await expectUsage(s, c, "errors.enum", `--${flag.name} outside its enum`, argv, "INVALID_ENUM", (env) => {
    const e = env.error!;
    const values = flag.enum?.length ? flag.enum : Array.isArray(e.allowed) ? e.allowed.map(String) : [];
    if (!Array.isArray(e.allowed) || e.allowed.length === 0)
      return `allowed is ${JSON.stringify(e.allowed)}, expected the valid values${flag.enum?.length ? ` ${JSON.stringify(flag.enum)}` : ""}`;
    if ([...e.allowed].map(String).sort().join("\n") !== [...values].sort().join("\n"))
      return `allowed is ${JSON.stringify(e.allowed)}, expected the enum ${JSON.stringify(values)}`;
    if (e.got !== got) return `got is ${JSON.stringify(e.got)}, expected ${JSON.stringify(got)}`;
    const missing = values.filter((x) => !e.message.includes(x));
    if (missing.length) return `the message does not list ${missing.join(", ")}: ${e.message}`;
    taught = values;
    return null;
  });
  const first = (taught as string[] | null)?.[0];
  if (flag.enum?.length || first === undefined) return;
  const r = await probe(s, c, `--${flag.name} ${first} (a value its error listed)`, [
    ...requiredArgv(c, [flag.name]),
    `--${flag.name}`,
    first,
    "--no-input",
  ]);
  const env = inspectEnvelope(s, r, c);
  if (env)
    s.findings.expect(
      "errors.enum",
      env.ok || classOf(s, env.error!.code, r.exit) !== 2,
      `--${flag.name} ${first}, a value its own error listed as allowed, is refused: ${env.error?.code}: ${env.error?.message}`,
      r,
    );
}

/** contract §4: a number below its minimum or above its maximum is a usage error with allowed and got. */
async function checkRanges(s: Subject, c: CommandDoc): Promise<void> {
  for (const flag of c.flags.filter((x) => x.type === "integer" || x.type === "number")) {
    const p = (props(c)[flag.name] ?? {}) as { minimum?: unknown; maximum?: unknown };
    const min = flag.minimum ?? (typeof p.minimum === "number" ? p.minimum : undefined);
    const max = flag.maximum ?? (typeof p.maximum === "number" ? p.maximum : undefined);
    for (const bad of [min === undefined ? null : min - 1, max === undefined ? null : max + 1]) {
      if (bad === null) continue;
      await expectUsage(
        s,
        c,
        "errors.range",
        `--${flag.name} ${bad}, out of its range`,
        [...requiredArgv(c, [flag.name]), `--${flag.name}=${bad}`],
        "OUT_OF_RANGE",
        (env) => {
          const e = env.error!;
          if (e.allowed === undefined || e.allowed === null)
            return `the range rejection has no allowed (expected e.g. {"min": ${min ?? "…"}, "max": ${max ?? "…"}})`;
          if (e.got === undefined || String(e.got) !== String(bad))
            return `got is ${JSON.stringify(e.got)}, expected ${bad}`;
          return null;
        },
      );
    }
  }
}
