/**
 * Contract §8 on the tool's own plans, where verify can make and approve one
 * (a documented plan or create example followed by an apply example; the
 * approval from approval.ts): applied twice, the second apply executes
 * nothing and says so per item; applied after its expiry, it is refused;
 * with one byte of plan.json changed, it is refused. A refusal is exit 3
 * (input) or 5 (policy) with nothing executed. Where verify cannot reach an
 * applied plan, each check is *not proven*, with the reason: skipped, never
 * failed, since verify may lack the gate or the data the tool's plan needs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { inspectEnvelope } from "../base/inspect.ts";
import type { CheckId } from "../base/report.ts";
import type { RunResult } from "../base/sandbox.ts";
import type { Subject } from "../base/subject.ts";
import type { DescribeDoc, Envelope } from "../base/schemas.ts";
import { approve, flagValue, planAt } from "./approval.ts";
import { workspace, type Workspace } from "./effects.ts";
import { nameOf, varied, type Way, waysOf } from "./grow.ts";
import { without } from "./list-items.ts";
import { words } from "./values.ts";

const PROBES = ["plans.reapply", "plans.expiry", "plans.checksum"] as const satisfies readonly CheckId[];

/** What each item of an apply's answer says it executed: data.items, or error.detail.items of a partial apply. */
function executedOf(env: Envelope | null): boolean[] | null {
  const from = (x: unknown) => (x && typeof x === "object" ? (x as { items?: unknown }).items : undefined);
  const items = from(env?.data) ?? from(env?.error?.detail);
  if (!Array.isArray(items)) return null;
  const said = items.map((i) => (i && typeof i === "object" ? (i as { executed?: unknown }).executed : undefined));
  return said.every((e) => typeof e === "boolean") ? (said as boolean[]) : null;
}

interface Planned {
  readonly ref: string;
  readonly env: Record<string, string>;
  readonly reviewMs: number;
  /** What verify lacked to approve it (no gate): said if the apply is refused. */
  readonly missing: string | null;
}

/** The way's plan made (its example varied for this round, plus `extra`) and approved; or why not. */
async function planned(s: Subject, w: Workspace, way: Way, n: number, extra: string[] = []): Promise<Planned | string> {
  const [maker, applier] = way;
  const argv = [...without(varied(maker!.command, maker!.argv, n), ["ttl"]), ...extra];
  const r = await s.sandbox.run({
    label: `§8: ${maker!.command.name}'s example makes a plan (round ${n})`,
    argv: [...words(maker!.command), ...argv, "--no-input"],
    cwd: w.cwd,
    env: w.env,
  });
  const env = inspectEnvelope(s, r, maker!.command);
  if (!env?.ok) return `${maker!.command.name}'s example failed (${env?.error?.code ?? `exit ${r.exit}`})`;
  const ref = flagValue(applier!.argv, "plan");
  if (ref === null) return `${applier!.command.name}'s example names no --plan`;
  if (typeof planAt(ref, w.cwd)?.doc.checksum !== "string")
    return `the plan at ${applier!.command.name}'s --plan ${ref} carries no checksum (contract §8)`;
  const started = performance.now();
  const approval = await approve(s, w, ref);
  if ("why" in approval) return approval.why;
  return { ref, env: approval.env, reviewMs: performance.now() - started, missing: approval.missing ?? null };
}

async function apply(s: Subject, w: Workspace, way: Way, p: Planned, label: string) {
  const applier = way[1]!;
  const r = await s.sandbox.run({
    label: `§8: ${label}`,
    argv: [...words(applier.command), ...applier.argv, "--no-input"],
    cwd: w.cwd,
    env: { ...w.env, ...p.env },
  });
  return { r, env: inspectEnvelope(s, r, applier.command) };
}

/** A refusal: ok false, exit 3 or 5, and no item executed. */
function judgeRefusal(s: Subject, id: CheckId, what: string, a: { r: RunResult; env: Envelope | null }): void {
  const ran = executedOf(a.env)?.some((e) => e) ?? false;
  if (a.env?.ok || ran)
    return s.findings.fail(id, `${what} was applied${ran ? " (an item says executed: true)" : ""}`, a.r);
  s.findings.expect(id, a.r.exit === 3 || a.r.exit === 5, `${what} was refused with exit ${a.r.exit}, not 3 or 5`, a.r);
}

/** Applied, then applied again: nothing may execute twice, and the answer says so per item. */
async function reapply(s: Subject, w: Workspace, way: Way): Promise<Planned | string> {
  const p = await planned(s, w, way, 101);
  if (typeof p === "string") return p;
  const first = await apply(s, w, way, p, "apply the approved plan");
  if (!first.env?.ok)
    return `its apply failed (${first.env?.error?.code ?? `exit ${first.r.exit}`})${p.missing ? `: ${p.missing}` : ""}`;
  const again = await apply(s, w, way, p, "apply the same plan again");
  const said = executedOf(again.env);
  if (said?.some((e) => e)) s.findings.fail("plans.reapply", "the second apply executed an item again", again.r);
  else if (again.env?.ok && said === null)
    s.findings.fail("plans.reapply", "the second apply does not say per item that it executed nothing", again.r);
  else s.findings.exercised("plans.reapply");
  return p;
}

/** Planned with a time to live the review fits in, approved, applied once it has passed. */
async function expiry(s: Subject, w: Workspace, way: Way, reviewMs: number): Promise<string | null> {
  if (!way[0]!.command.flags.some((f) => f.name === "ttl" && (f.type === "integer" || f.type === "number")))
    return `'${way[0]!.command.name}' declares no --ttl (seconds) to make a plan that expires while verify waits`;
  const ttl = Math.max(2, Math.ceil((3 * reviewMs) / 1000));
  const p = await planned(s, w, way, 102, ["--ttl", String(ttl)]);
  if (typeof p === "string") return p;
  const expires = Date.parse(String(planAt(p.ref, w.cwd)?.doc.expiry));
  if (Number.isNaN(expires)) return "its plan.json carries no expiry verify can read";
  await Bun.sleep(Math.max(0, expires - Date.now()) + 500);
  judgeRefusal(s, "plans.expiry", "a plan past its expiry", await apply(s, w, way, p, "apply after the expiry"));
  return null;
}

/** Approved, then one letter of an item's reason in plan.json changed: the checksum no longer covers it. */
async function checksum(s: Subject, w: Workspace, way: Way): Promise<string | null> {
  const p = await planned(s, w, way, 103);
  if (typeof p === "string") return p;
  const path = planAt(p.ref, w.cwd)!.path;
  const text = readFileSync(path, "latin1");
  const m = /"reason"\s*:\s*"[^"\\]*?[A-Za-z]/.exec(text);
  if (!m) return "its plan.json has no item reason to change a byte of";
  const at = m.index + m[0].length - 1;
  writeFileSync(path, `${text.slice(0, at)}${text[at] === "x" ? "y" : "x"}${text.slice(at + 1)}`, "latin1");
  judgeRefusal(s, "plans.checksum", "a plan changed after planning", await apply(s, w, way, p, "apply a changed plan"));
  return null;
}

const notProven = (s: Subject, ids: readonly CheckId[], why: string): void => {
  for (const id of ids) s.findings.skip(id, `not proven: ${why}`);
};

export async function checkPlans(s: Subject, doc: DescribeDoc): Promise<void> {
  if (!doc.commands.some((c) => c.rw === "write")) {
    for (const id of PROBES) s.findings.skip(id, "the tool has no write command");
    return;
  }
  const ways = waysOf(doc).filter((way) => way.length === 2 && way[1]!.command.verb === "apply");
  if (ways.length === 0)
    return notProven(s, PROBES, "the tool documents no plan (or create) example followed by an apply example");
  const why: string[] = [];
  for (const way of ways) {
    // A folder per probe: what one probe leaves (a plan it could not apply, which a tool may rightly refuse to
    // plan over) never stands in the next one's way.
    const fresh = (probe: string) => workspace(s, `plans-${way[0]!.command.name}-${probe}`);
    const made = await reapply(s, fresh("reapply"), way);
    if (typeof made === "string") {
      why.push(`${nameOf(way)}: ${made}`);
      continue;
    }
    const late = await expiry(s, fresh("expiry"), way, made.reviewMs);
    if (late) notProven(s, ["plans.expiry"], late);
    const changed = await checksum(s, fresh("checksum"), way);
    if (changed) notProven(s, ["plans.checksum"], changed);
    return;
  }
  notProven(s, PROBES, `verify could not apply a plan of the tool's own: ${why.join("; ")}`);
}
