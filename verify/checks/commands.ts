/**
 * Per-command probes (contract §3, §4, §6): every universal flag accepted,
 * --params read like argv, --toon decoding to the envelope, and each kind of
 * bad input answered with exit 2 and the code that teaches (usage.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { decode as decodeToon } from "@toon-format/toon";
import { isDeepStrictEqual } from "node:util";
import { inspectEnvelope, inspectStreams } from "../base/inspect.ts";
import { classOf, holds, type Subject } from "../base/subject.ts";
import type { CommandDoc, Envelope } from "../base/schemas.ts";
import { checkFields } from "./fields.ts";
import { checkOptionalFlags } from "./honest-flags.ts";
import { checkBadInput, probe } from "./usage.ts";
import { firstField, requiredArgv } from "./values.ts";

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
    // --cursor is the kit's, and only for a list: contract §3 does not make it universal.
    ...(holds(s, "cursor") && c.isList ? [["--cursor", "not-a-real-cursor", "--no-input"]] : []),
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

/** contract §3: --fields on a read's own result (its first example, else its required flags); lists get theirs on their data. */
async function checkReadFields(s: Subject, c: CommandDoc): Promise<void> {
  if (c.rw !== "read" || c.isList) return;
  const r = await probe(s, c, "its own result (for --fields)", [
    ...(c.examples?.[0]?.argv ?? requiredArgv(c)),
    "--no-input",
  ]);
  const env = inspectEnvelope(s, r, c);
  if (env?.ok) await checkFields(s, c, r, env);
}

export async function checkCommand(s: Subject, c: CommandDoc): Promise<void> {
  await Promise.all([
    checkUniversalFlags(s, c),
    checkReadFields(s, c),
    checkOptionalFlags(s, c),
    ...(holds(s, "params") ? [checkParams(s, c)] : []),
    checkBadInput(s, c),
  ]);
}
