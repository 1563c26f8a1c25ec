/**
 * Per-command probes (contract §3, §4, §6): every universal flag accepted,
 * --params read like argv, and each kind of bad input answered with exit 2
 * and the code that teaches.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { decode as decodeToon } from "@toon-format/toon";
import { isDeepStrictEqual } from "node:util";
import { FORBIDDEN_VERBS } from "../contract.ts";
import { classOf, holds, inspectEnvelope, inspectStreams, type Subject } from "../inspect.ts";
import type { CheckId } from "../report.ts";
import type { CommandDoc, DescribeDoc, Envelope } from "../schemas.ts";
import { firstField, props, requiredArgv, words } from "./values.ts";

const probe = (s: Subject, c: CommandDoc, label: string, argv: string[], extra: { stdin?: string } = {}) =>
  s.sandbox.run({ label: `${c.name}: ${label}`, argv: [...words(c), ...argv], ...extra });

/**
 * Whether a run refused one of `flags` as unknown: the kit's UNKNOWN_FLAG, or
 * (any tool) a usage error that gives the flag as what it got, or calls it
 * unknown. A known flag whose value makes no sense here (a cursor on a
 * command with no list) is accepted, not refused.
 */
const refusedAFlag = (s: Subject, env: Envelope | null, exit: number | null, flags: readonly string[]): boolean => {
  const e = env?.error;
  if (!e) return false;
  if (e.code === "UNKNOWN_FLAG") return true;
  if (classOf(s, e.code, exit) !== 2) return false;
  const named = (f: string) =>
    e.got === f ||
    (Array.isArray(e.got) && e.got.includes(f)) ||
    new RegExp(
      `(unknown|unrecognized|no such|not a valid|invalid option|unexpected)[^.;]*${f}(?![a-z0-9-])|${f}(?![a-z0-9-])[^.;]*(unknown|unrecognized|not recognized|not supported)`,
      "i",
    ).test(e.message);
  return flags.some(named);
};

/** Every universal flag at once; if that is refused, each alone, to name the one. */
async function checkUniversalFlags(s: Subject, c: CommandDoc): Promise<void> {
  const f = s.findings;
  const runDir = s.sandbox.dir("run");
  const sets: string[][] = [
    ["--json", "--dry-run", "--force", "--yes", "--no-input", "--wait", "--limit", "1", "--run-dir", runDir],
    ...(holds(s, "cursor") ? [["--cursor", "not-a-real-cursor", "--no-input"]] : []),
    ...(firstField(c) ? [["--fields", firstField(c)!, "--no-input"]] : []),
  ];
  for (const set of sets) {
    const flags = set.filter((a) => a.startsWith("--"));
    const r = await probe(s, c, `universal flags ${flags.join(" ")}`, [...requiredArgv(c), ...set]);
    const env = inspectEnvelope(s, r, c);
    if (!refusedAFlag(s, env, r.exit, flags)) {
      f.exercised("flags.universal");
      continue;
    }
    for (const flag of set.filter((a) => a.startsWith("--"))) {
      const i = set.indexOf(flag);
      const alone = set[i + 1] && !set[i + 1]!.startsWith("--") ? [flag, set[i + 1]!] : [flag];
      const one = await probe(s, c, `universal flag ${flag}`, [...requiredArgv(c), ...alone]);
      // --cursor is the kit's (extension cursor), and a refusal of it is that extension's finding.
      if (refusedAFlag(s, inspectEnvelope(s, one, c), one.exit, [flag]))
        f.fail(
          flag === "--cursor" ? "lists.cursor" : "flags.universal",
          `'${c.name}' refuses the universal flag ${flag}`,
          one,
        );
    }
  }
}

/** --params FILE with the required flags in it answers like the same flags on argv. */
async function checkParams(s: Subject, c: CommandDoc): Promise<void> {
  const argv = requiredArgv(c);
  const doc: Record<string, unknown> = {};
  for (const a of argv) {
    const [k, val] = a.slice(2).split(/=(.*)/s);
    const type = c.flags.find((x) => x.name === k)?.type;
    doc[k!] =
      val === undefined ? true : type === "integer" || type === "number" ? Number(val) : type === "array" ? [val] : val;
  }
  const file = join(s.sandbox.dir("params"), "params.json");
  writeFileSync(file, JSON.stringify(doc));
  const viaArgv = inspectEnvelope(s, await probe(s, c, "flags on argv", [...argv, "--no-input"]), c);
  const r = await probe(s, c, "--params FILE", ["--params", file, "--no-input"]);
  const viaParams = inspectEnvelope(s, r, c);
  if (!viaArgv || !viaParams) return;
  s.findings.expect(
    "flags.params",
    viaParams.ok === viaArgv.ok && viaParams.error?.code === viaArgv.error?.code,
    `--params ${JSON.stringify(doc)} gave ${viaParams.error?.code ?? "success"}; the same flags on argv gave ${viaArgv.error?.code ?? "success"}`,
    r,
  );
}

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

async function checkBadInput(s: Subject, c: CommandDoc): Promise<void> {
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

  for (const flag of c.flags.filter((x) => x.type === "enum")) await checkEnum(s, c, flag);
  await checkRanges(s, c);

  if (c.isList) {
    const r = await probe(s, c, "--limit 0", [...requiredArgv(c), "--limit", "0", "--no-input"]);
    const env = inspectEnvelope(s, r, c);
    if (
      env &&
      s.findings.expect(
        "lists.limit-zero",
        r.exit === 2 && !env.ok,
        `--limit 0 gave exit ${r.exit} (${env?.error?.code ?? "success"}), expected exit 2: 0 is not 'unbounded'`,
        r,
      )
    )
      s.findings.expect(
        "errors.range",
        env.error!.allowed !== undefined && env.error!.got !== undefined,
        `--limit 0: the range rejection has no ${env.error!.allowed === undefined ? "allowed" : "got"}: ${JSON.stringify(env.error)}`,
        r,
      );
  }
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

/** --toon on one command: TOON (not JSON) that decodes to the envelope --json prints. */
export async function checkToon(s: Subject, c: CommandDoc): Promise<void> {
  const argv = [...requiredArgv(c), "--no-input"];
  const [r, json] = await Promise.all([
    probe(s, c, "--toon", [...argv, "--toon"]),
    probe(s, c, "--json (to compare with --toon)", [...argv, "--json"]),
  ]);
  if (!inspectStreams(s, r) || !inspectStreams(s, json)) return;
  let decoded: unknown;
  try {
    decoded = decodeToon(r.stdout.trimEnd());
  } catch (e) {
    return s.findings.fail("flags.toon", `--toon output does not decode as TOON: ${(e as Error).message}`, r);
  }
  let expected: Record<string, unknown>;
  try {
    expected = JSON.parse(json.stdout);
  } catch {
    return; // the JSON run's own findings say why
  }
  // Two runs differ only in what is volatile by nature: the time taken and a fresh temp run dir.
  const comparable = (x: unknown) => ({
    ...(x as Record<string, unknown>),
    meta: { ...((x as { meta?: object }).meta ?? {}), duration_ms: 0, run_dir: null },
  });
  s.findings.expect(
    "flags.toon",
    !r.stdout.trimStart().startsWith("{") && isDeepStrictEqual(comparable(decoded), comparable(expected)),
    "--toon did not print the --json envelope encoded as TOON",
    r,
  );
}

export async function checkCommand(s: Subject, c: CommandDoc): Promise<void> {
  await Promise.all([
    checkUniversalFlags(s, c),
    ...(holds(s, "params") ? [checkParams(s, c)] : []),
    checkBadInput(s, c),
  ]);
}

/** The tool's own entry: unknown commands and the forbidden synonyms. */
export async function checkToolLevel(s: Subject, doc: DescribeDoc): Promise<void> {
  const names = doc.commands.map((c) => c.name);
  const canonical: Record<string, string> = {
    info: "get",
    show: "get",
    fetch: "get",
    ls: "list",
    rm: "delete",
    new: "create",
    make: "create",
    run: "apply",
  };
  const resources = [...new Set(doc.commands.map((c) => c.resource).filter((r): r is string => Boolean(r)))];
  // A forbidden verb the tool declares is describe.verbs' finding; probing it again would report one cause twice.
  // Every synonym alone, and two under each resource, rotating, so every resource and every
  // synonym is probed without multiplying the runs.
  const underResources = resources.flatMap((r, i) =>
    [0, 1].map((k) => [r, FORBIDDEN_VERBS[(i * 2 + k) % FORBIDDEN_VERBS.length]!]),
  );
  const attempts: string[][] = [["zz-not-a-command"], ...FORBIDDEN_VERBS.map((w) => [w]), ...underResources].filter(
    (a) => !names.includes(a.join(" ")),
  );
  await Promise.all(
    attempts.map(async (argv) => {
      const r = await s.sandbox.run({ label: `unknown command ${argv.join(" ")}`, argv: [...argv, "--no-input"] });
      const env = inspectEnvelope(s, r, null);
      if (!env) return;
      const e = env.error;
      if (
        !s.findings.expect(
          "errors.unknown-command",
          !env.ok && classOf(s, e!.code, r.exit) === 2,
          `'${argv.join(" ")}' gave ${e?.code ?? "success"} (exit ${r.exit}), expected a usage error (exit 2)`,
          r,
        )
      )
        return;
      const scope = argv.length === 2 ? names.filter((n) => n.startsWith(`${argv[0]} `)) : names;
      if (holds(s, "error-codes")) {
        const allowed = Array.isArray(e!.allowed) ? e!.allowed.map(String) : [];
        if (
          s.findings.expect(
            "errors.kit-codes",
            e!.code === "UNKNOWN_COMMAND",
            `'${argv.join(" ")}' gave ${e!.code}, expected UNKNOWN_COMMAND`,
            r,
          )
        )
          s.findings.expect(
            "errors.kit-codes",
            scope.every((n) => allowed.includes(n)),
            `'${argv.join(" ")}': allowed ${JSON.stringify(allowed)} does not list ${scope.join(", ")}`,
            r,
          );
      }
      const verb = canonical[argv.at(-1)!];
      const exists = verb && scope.some((n) => n.split(" ").at(-1) === verb);
      if (exists && holds(s, "hint"))
        s.findings.expect(
          "errors.hint",
          (e!.hint ?? "").includes(verb!),
          `'${argv.join(" ")}': the hint does not name the canonical verb '${verb}': ${e!.hint ?? "(no hint)"}`,
          r,
        );
    }),
  );
}
