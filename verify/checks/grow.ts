/**
 * Data for a list that holds too little of its own (contract §6, judged
 * without golden cases): made with the tool's own write path, in a workspace
 * of verify's, from the tool's documented examples: a `create` command's, or
 * a `plan` example followed by an `apply` example, run for real there. Round
 * after round, a string value that names nothing on disk is varied (`milk`,
 * `milk-2`, …) so that each round adds rather than repeats, until the list
 * is longer than its default bound or a budget of runs is spent.
 */
import { inspectEnvelope } from "../base/inspect.ts";
import type { Subject } from "../base/subject.ts";
import type { CommandDoc, DescribeDoc } from "../base/schemas.ts";
import { workspace, type Workspace } from "./effects.ts";
import { sizeOf, without } from "./list-items.ts";
import { approve, flagValue } from "./approval.ts";
import { words } from "./values.ts";

export interface Step {
  readonly command: CommandDoc;
  readonly argv: readonly string[];
}
export type Way = readonly Step[];

/** Runs one way may take to make a list long enough. */
const MAX_RUNS = 80;
const PATH_TYPES = /^(path|file|dir|directory|folder|url|uri)$/i;
const PATHLIKE = /[/\\]|\.[A-Za-z0-9]{1,5}$/;

/**
 * The write paths the tool documents: each `create` example, alone and then
 * followed by the first `apply` example (a create that plans), and each
 * `plan` example with the first `apply` one.
 */
export function waysOf(doc: DescribeDoc): Way[] {
  const examples = (c: CommandDoc) => (c.examples ?? []).map((e) => e.argv).filter((a) => !a.includes("--dry-run"));
  const direct = doc.commands
    .filter((c) => c.rw === "write" && c.verb === "create")
    .flatMap((c) => examples(c).map((argv): Way => [{ command: c, argv }]));
  const appliers = doc.commands.filter((c) => c.verb === "apply" && examples(c).length);
  const planned = doc.commands
    .filter((c) => c.verb === "plan")
    .flatMap((p) =>
      examples(p).flatMap((argv) =>
        appliers.map(
          (a): Way => [
            { command: p, argv },
            { command: a, argv: examples(a)[0]! },
          ],
        ),
      ),
    );
  const createThenApply = direct.flatMap((way) =>
    appliers.map((a): Way => [...way, { command: a, argv: examples(a)[0]! }]),
  );
  return [...direct, ...createThenApply, ...planned];
}

export const nameOf = (way: Way): string => way.map((step) => step.command.name).join(" → ");

/** The example's argv for a round: from the second on, each plain string value gets the round's suffix. */
export function varied(c: CommandDoc, argv: readonly string[], round: number): string[] {
  const vary = (flag: string, value: string): string => {
    const f = c.flags.find((x) => x.name === flag);
    const plain = f?.type === "string" && !PATH_TYPES.test(f.rawType) && value !== "" && !PATHLIKE.test(value);
    return round > 1 && plain ? `${value}-${round}` : value;
  };
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf("=");
    if (a.startsWith("--") && eq !== -1) out.push(`${a.slice(0, eq)}=${vary(a.slice(2, eq), a.slice(eq + 1))}`);
    else if (a.startsWith("--") && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--"))
      out.push(a, vary(a.slice(2), argv[++i]!));
    else out.push(a);
  }
  return out;
}

/**
 * One step of a way, run in the workspace; an apply after a step that made a
 * plan first has it approved (approval.ts). What the step answered, and why
 * an approval could not be had.
 */
export async function runStep(s: Subject, w: Workspace, way: Way, i: number, argv: readonly string[], label: string) {
  const step = way[i]!;
  const ref = step.command.verb === "apply" && i > 0 ? flagValue(argv, "plan") : null;
  const approval = ref === null ? null : await approve(s, w, ref);
  const r = await s.sandbox.run({
    label,
    argv: [...words(step.command), ...argv, "--no-input"],
    cwd: w.cwd,
    env: { ...w.env, ...(approval && "env" in approval ? approval.env : {}) },
  });
  return {
    r,
    env: inspectEnvelope(s, r, step.command),
    unapproved: approval === null ? null : "why" in approval ? approval.why : (approval.missing ?? null),
  };
}

/** One round of a way; null when every step succeeded, else what went wrong. */
async function round(s: Subject, list: CommandDoc, way: Way, w: Workspace, n: number): Promise<string | null> {
  for (const [i, step] of way.entries()) {
    const label = `${list.name}: data made by ${step.command.name}'s example (round ${n})`;
    const { r, env, unapproved } = await runStep(s, w, way, i, varied(step.command, step.argv, n), label);
    if (!env?.ok)
      return `${step.command.name}'s example failed in round ${n} (${env?.error?.code ?? `exit ${r.exit}`})${unapproved ? `: ${unapproved}` : ""}`;
  }
  return null;
}

type Grown =
  | { readonly cwd: string; readonly env: Record<string, string>; readonly how: string }
  | { readonly why: string; readonly first?: true };

async function growBy(s: Subject, list: CommandDoc, argv: readonly string[], way: Way, bound: number): Promise<Grown> {
  const w = workspace(s, `grow-${list.name.replace(/ /g, "-")}`);
  const size = async () => {
    const listArgv = [...words(list), ...without(argv, ["limit", "cursor", "fields"]), "--no-input"];
    const r = await s.sandbox.run({ label: `${list.name}: size`, argv: listArgv, cwd: w.cwd, env: w.env });
    return sizeOf(inspectEnvelope(s, r, list)) ?? 0;
  };
  const start = await size();
  const first = await round(s, list, way, w, 1);
  if (first) return { why: first, first: true };
  const per = (await size()) - start;
  if (per <= 0) return { why: `${nameOf(way)} ran, yet '${list.name}' held no more items than before` };
  const more = Math.max(0, Math.ceil((bound + 1 - start - per) / per));
  // An apply after a plan costs one run more: the gate's review.
  const perRound = way.length + (way.length > 1 && way.at(-1)!.command.verb === "apply" ? 1 : 0);
  if (3 + (1 + more) * perRound > MAX_RUNS)
    return { why: `${nameOf(way)} adds ${per} item(s) a round: ${more + 1} rounds would take over ${MAX_RUNS} runs` };
  for (let n = 2; n <= more + 1; n++) {
    const failed = await round(s, list, way, w, n);
    if (failed) return { why: failed };
  }
  return { cwd: w.cwd, env: w.env, how: `data made by its own ${nameOf(way)} examples (${more + 1} round(s))` };
}

/** Ways whose first round failed, per tool: run from a fresh workspace each time, they would fail again for every list. */
const failing = new WeakMap<Subject, Map<string, string>>();

/** Makes a list longer than `bound` with the tool's own write path, or says why it could not. */
export async function grow(s: Subject, doc: DescribeDoc, list: CommandDoc, argv: readonly string[], bound: number) {
  const ways = waysOf(doc);
  if (ways.length === 0)
    return { why: "the tool documents no create example and no plan → apply examples that could add to it" };
  const failed = failing.get(s) ?? new Map<string, string>();
  failing.set(s, failed);
  const why: string[] = [];
  for (const way of ways) {
    const key = way.map((step) => `${step.command.name} ${step.argv.join(" ")}`).join(" → ");
    const known = failed.get(key);
    const grown = known ? { why: known } : await growBy(s, list, argv, way, bound);
    if ("how" in grown) return grown;
    if ("first" in grown) failed.set(key, grown.why);
    why.push(grown.why);
  }
  return { why: `its own write path did not make the data: ${why.join("; ")}` };
}
