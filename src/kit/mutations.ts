/**
 * contract §8 on the tool's side. A tool that changes anything declares its
 * `Mutations` (how to read a target's live version, and per action how to
 * execute an item and how to tell from external truth whether it has already
 * landed); the kit writes plans and gives it `apply`, `target list` and
 * `action list`, which run every item through the ledger:
 *
 *   claim(key) → re-check preconditions → execute → settle → action-log row
 *
 * Items touching one target run in plan order, each expecting the version
 * the previous one leaves, so the plan's own confirmed items never make it
 * stale, while anybody else's change to a target fails that item's
 * precondition.
 */
import { hostname, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { existsSync, mkdirSync } from "node:fs";
import * as z from "zod/mini";
import { LEDGER_ENV, openLedger } from "../ledger/open.ts";
import { describe } from "./annotate.ts";
import type { CommandContext } from "./context.ts";
import { defineCommand, type CommandSpec, type EnvVar } from "./define.ts";
import { KitError, type ErrorCode } from "./errors.ts";
import { assertIntact, assertUnexpired, buildPlan, canonicalJson, PLAN_FILE, readPlanFile, resolvePlanPath, writePlanFile, type ItemInput, type Plan, type PlanItem } from "./plan.ts";
import { POLICY_ENV, readPolicy } from "./policy.ts";
import { sha256 } from "./hash.ts";

export const GATE_PUBLIC_KEY_ENV = "AGENT_GATE_PUBLIC_KEY";
/**
 * Fault injection for crash and race tests, comma-separated: `after-execute:N`
 * kills the process (SIGKILL) after its Nth execution, before confirming it;
 * `delay-execute:MS` makes each execution take MS longer, as a slow API would.
 */
export const FAILPOINT_ENV = "AGENT_KIT_FAILPOINT";

export interface TargetState {
  /** A content hash: what preconditions compare. */
  readonly version: string;
  readonly bytes: number;
}

export interface ExecContext {
  readonly plan: Plan;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal: AbortSignal;
  /** Passed to the external system where it accepts one. */
  readonly idempotencyKey: string;
}

export interface ActionSpec {
  /**
   * Performs the item's side effect; returns what to record as its result. Throws
   * PRECONDITION_FAILED only before doing anything (the item stays retryable); any
   * other failure is stored as the item's outcome.
   */
  execute(item: PlanItem, x: ExecContext): Promise<Record<string, unknown>>;
  /** Reads external truth: is this item's effect already in place? Used to reconcile after a crash. */
  landed(item: PlanItem, x: ExecContext): Promise<boolean>;
}

export interface Mutations {
  /** A target's live state, or null when it does not exist. */
  readTarget(target: string, x: Omit<ExecContext, "idempotencyKey">): Promise<TargetState | null>;
  readonly actions: Readonly<Record<string, ActionSpec>>;
  /** Environment the executors read (e.g. a repository path), declared on apply and target list. */
  readonly env?: readonly EnvVar[];
  /** Codes the executors raise. */
  readonly errors?: readonly ErrorCode[];
}

// ————————————————————————————————————————— writing plans

export const planResult = z.object({
  plan: describe(z.string(), "The plan.json written: give it to the gate, then to `apply --plan`."),
  checksum: z.string(),
  expiry: z.string(),
  items: z.array(z.object({ id: z.string(), action: z.string(), reason: z.string(), target_resource_ids: z.array(z.string()) })),
});

export const ttlFlag = describe(z.optional(z.int().check(z.minimum(1), z.maximum(7 * 24 * 3600))), "Seconds until the plan expires (default 86400: one day).");

/**
 * Writes plan.json into the run dir. If making the items fails, a plan marked
 * `failed` is written instead (so a stale plan.json from before cannot be
 * applied by mistake) and the error is raised.
 */
export async function writePlan(
  ctx: CommandContext<unknown>,
  make: () => Promise<{ context: Record<string, unknown>; items: ItemInput[] }>,
  ttlSeconds = 86400,
): Promise<z.output<typeof planResult>> {
  mkdirSync(ctx.runDir.path, { recursive: true });
  const path = join(ctx.runDir.path, PLAN_FILE);
  const base = { tool: ctx.tool.name, toolVersion: ctx.tool.version, now: ctx.now(), ttlSeconds };
  let plan: Plan;
  try {
    const made = await make();
    plan = buildPlan({ ...base, ...made });
  } catch (e) {
    const err = e instanceof KitError ? e : new KitError("INTERNAL", (e as Error).message);
    writePlanFile(path, buildPlan({ ...base, context: {}, items: [], failure: { code: err.code, message: err.message } }));
    throw err;
  }
  if (plan.items.length === 0) ctx.log.info("nothing to change: the plan has no items");
  writePlanFile(path, plan);
  return { plan: path, checksum: plan.checksum, expiry: plan.expiry, items: plan.items.map((i) => ({ id: i.id, action: i.action, reason: i.reason, target_resource_ids: i.target_resource_ids })) };
}

// ————————————————————————————————————————— checking plans

/** Everything that must hold before any item runs; each failure its own code. */
async function admit(plan: Plan, env: Readonly<Record<string, string | undefined>>, now: number, toolName: string): Promise<void> {
  const apply = `${toolName} apply --plan`;
  assertIntact(plan);
  const a = plan.approval;
  if (!a || !plan.approval_id || !plan.policy_version)
    throw new KitError("APPROVAL_REQUIRED", "the plan has no approval", { hint: "have the gate review it: `gate review --plan PLAN` (or a person: `gate approve --plan PLAN --by NAME`)" });
  if (a.checksum !== plan.checksum || a.expiry !== plan.expiry || a.policy_version !== plan.policy_version)
    throw new KitError("APPROVAL_MISMATCH", "the approval was given for a different plan (its checksum, expiry or policy version differ)", {
      detail: { plan: plan.checksum, approved: a.checksum },
      hint: "have the gate review this plan itself",
    });
  // Both variables are declared required on apply: the kit has refused to run without them.
  const publicKey = env[GATE_PUBLIC_KEY_ENV]!;
  const { verifyApproval } = await import("./approval.ts");
  if (!verifyApproval(publicKey, GATE_PUBLIC_KEY_ENV, a.checksum, a.policy_version, a.expiry, a.signature) || plan.approval_id !== approvalIdOf(a.signature))
    throw new KitError("APPROVAL_INVALID", "the approval's signature does not verify with the gate's public key", { hint: "only the gate can approve a plan: `gate review --plan PLAN`" });
  assertUnexpired(plan, now);
  const current = readPolicy(env[POLICY_ENV]!).version;
  if (current !== plan.policy_version)
    throw new KitError("POLICY_STALE", `the plan was approved under policy ${plan.policy_version}, but the policy is now ${current}`, {
      got: plan.policy_version,
      allowed: [current],
      hint: `have the gate review it again under the current policy: \`gate review --plan PLAN\`; then \`${apply}\``,
    });
}

export const approvalIdOf = (signature: string): string => `apr-${sha256(signature).slice("sha256:".length, "sha256:".length + 16)}`;

// ————————————————————————————————————————— applying plans

const ITEM_OUTCOMES = ["applied", "already-applied", "reconciled", "would-apply", "failed", "skipped", "in-progress"] as const;
type ItemOutcome = (typeof ITEM_OUTCOMES)[number];
/** Outcomes that leave the item's change in place. */
const IN_PLACE: ReadonlySet<ItemOutcome> = new Set(["applied", "already-applied", "reconciled"]);

interface ItemReport {
  id: string;
  action: string;
  executed: boolean;
  outcome: ItemOutcome;
  result: unknown;
  error: { code: string; message: string } | null;
}

const itemReport = z.object({
  id: z.string(),
  action: z.string(),
  executed: describe(z.boolean(), "Whether this run performed the side effect."),
  outcome: z.enum(ITEM_OUTCOMES),
  result: z.unknown(),
  error: z.nullable(z.object({ code: z.string(), message: z.string() })),
});

const applyResult = z.object({
  plan: z.string(),
  status: describe(z.enum(["applied", "dry-run"]), "applied: every item is in place; dry-run: nothing was executed. Partial and failed runs are errors whose detail has the same shape."),
  executed: z.int(),
  items: z.array(itemReport),
});

const LEASE_MS = 60_000;
const POLL_MS = 50;

const actor = (env: Readonly<Record<string, string | undefined>>): string => env.AGENT_ACTOR || `${safeUser()}@${hostname()}`;
const safeUser = (): string => {
  try {
    return userInfo().username;
  } catch {
    return "unknown";
  }
};

/** Without AGENT_LEDGER_URL, a plan's ledger is a SQLite file beside it. */
const ledgerBeside = (planPath: string): string => join(dirname(planPath), "ledger.sqlite");

async function applyPlan(m: Mutations, ctx: CommandContext<{ plan: string }>): Promise<z.input<typeof applyResult>> {
  const planPath = resolvePlanPath(ctx.flags.plan, ctx.cwd);
  const plan = readPlanFile(planPath, ctx.tool.name);
  await admit(plan, ctx.env, ctx.now(), ctx.tool.name);
  for (const it of plan.items)
    if (!m.actions[it.action]) throw new KitError("PLAN_INVALID", `item ${it.id} has the action '${it.action}', which ${ctx.tool.name} does not know`, { allowed: Object.keys(m.actions) });

  const base = { plan, env: ctx.env, signal: ctx.signal };
  const owner = `${hostname()}/${process.pid}/${crypto.randomUUID().slice(0, 8)}`;
  const failpoints = new Map((ctx.env[FAILPOINT_ENV] ?? "").split(",").map((f) => f.split(":") as [string, string]));
  const killAfter = Number(failpoints.get("after-execute") ?? 0);
  const delay = Number(failpoints.get("delay-execute") ?? 0);
  let executions = 0;
  const blocked = new Map<string, string>(); // target → the item whose failure blocks later items on it
  const reports: ItemReport[] = [];
  const dryChecked = new Set<string>();
  const ledger = ctx.dryRun ? null : await openLedger(ctx.env[LEDGER_ENV], ledgerBeside(planPath));

  const preconditionsHold = async (it: PlanItem): Promise<string | null> => {
    for (const c of it.preconditions) {
      const live = await m.readTarget(c.target, base);
      const version = live?.version ?? null;
      if (version !== c.version) return `${c.target} is ${version === null ? "gone" : `at ${version.slice(0, 19)}…`}, not ${c.version === null ? "absent" : `${c.version.slice(0, 19)}…`} as planned`;
    }
    return null;
  };

  try {
    for (const it of plan.items) {
      ctx.signal.throwIfAborted();
      const x: ExecContext = { ...base, idempotencyKey: it.idempotency_key };
      const action = m.actions[it.action]!;
      const report = (outcome: ItemOutcome, executed: boolean, result: unknown = null, error: ItemReport["error"] = null) => {
        reports.push({ id: it.id, action: it.action, executed, outcome, result, error });
        if (!IN_PLACE.has(outcome) && outcome !== "would-apply") for (const t of it.target_resource_ids) if (!blocked.has(t)) blocked.set(t, it.id);
      };
      const blocker = it.target_resource_ids.map((t) => blocked.get(t)).find(Boolean);
      if (blocker) {
        report("skipped", false, null, { code: "PRECONDITION_FAILED", message: `not attempted: the earlier item ${blocker} on the same target did not apply` });
        continue;
      }
      if (!ledger) {
        // A dry run changes nothing, so only the first item on a target can be checked against it;
        // later ones expect what the earlier leave, a chain the plan's checksum vouches for.
        if (it.target_resource_ids.every((t) => dryChecked.has(t))) {
          report("would-apply", false);
          continue;
        }
        for (const t of it.target_resource_ids) dryChecked.add(t);
        const stale = await preconditionsHold(it);
        if (stale === null) report("would-apply", false);
        else if (await action.landed(it, x)) report("already-applied", false);
        else report("failed", false, null, { code: "PRECONDITION_FAILED", message: stale });
        continue;
      }

      const fingerprint = sha256(canonicalJson(it.params));
      const claimItem = () => ledger.claim({ key: it.idempotency_key, fingerprint, tool: ctx.tool.name, action: it.action, plan: plan.checksum, item: it.id, owner, leaseMs: LEASE_MS, now: ctx.now() });
      let claim = await claimItem();
      while (claim.kind === "busy" && ctx.wait && claim.leaseUntil > ctx.now()) {
        await Bun.sleep(POLL_MS);
        claim = await claimItem();
      }
      if (claim.kind === "conflict") {
        report("failed", false, null, { code: "CONFLICT", message: `the ledger holds key ${it.idempotency_key.slice(0, 19)}… with different params: a conflict, never a replay` });
        continue;
      }
      if (claim.kind === "busy") {
        report("in-progress", false, null, { code: "IN_PROGRESS", message: `another apply (${claim.owner}) holds this item until ${new Date(claim.leaseUntil).toISOString()}` });
        continue;
      }
      if (claim.kind === "settled") {
        const stored = claim.result as { error?: ItemReport["error"] } | null;
        if (claim.outcome === "applied") report("already-applied", false, claim.result);
        else report("failed", false, claim.result, stored?.error ?? { code: "UPSTREAM_ERROR", message: "this item failed in an earlier run" });
        continue;
      }

      const started = ctx.now();
      const settle = async (outcome: "applied" | "failed", executed: boolean, logOutcome: string, result: unknown) => {
        const finished = ctx.now();
        const kept = await ledger.settle(it.idempotency_key, owner, outcome, result, finished);
        if (!kept) throw new KitError("IN_PROGRESS", `lost the ledger lease on item ${it.id} while applying it`, { hint: "re-run the same apply to reconcile" });
        await ledger.log({ at: finished, actor: actor(ctx.env), tool: ctx.tool.name, action: it.action, plan: plan.checksum, item: it.id, key: it.idempotency_key, outcome: logOutcome, executed, startedAt: started, finishedAt: finished, detail: result });
      };

      // A takeover means a previous owner may have executed and died before confirming: read external truth first.
      if (claim.takeover && (await action.landed(it, x))) {
        await settle("applied", false, "reconciled", { reconciled_from: claim.previousOwner });
        report("reconciled", false);
        continue;
      }
      const stale = await preconditionsHold(it);
      if (stale !== null) {
        if (await action.landed(it, x)) {
          await settle("applied", false, "reconciled", { reconciled: "the change was already in place" });
          report("reconciled", false);
        } else {
          await ledger.release(it.idempotency_key, owner);
          report("failed", false, null, { code: "PRECONDITION_FAILED", message: stale });
        }
        continue;
      }
      let result: Record<string, unknown>;
      try {
        if (delay > 0) await Bun.sleep(delay);
        result = await action.execute(it, x);
      } catch (e) {
        const err = e instanceof KitError ? { code: e.code, message: e.message } : { code: "UPSTREAM_ERROR", message: (e as Error).message };
        // An executor raises PRECONDITION_FAILED only before any side effect: nothing happened, so
        // nothing is stored, and a re-run after the world is put right may still apply the item.
        if (err.code === "PRECONDITION_FAILED") {
          await ledger.release(it.idempotency_key, owner);
          report("failed", false, null, err);
          continue;
        }
        await settle("failed", true, "failed", { error: err });
        report("failed", true, null, err);
        continue;
      }
      executions++;
      if (executions === killAfter) process.kill(process.pid, "SIGKILL");
      await settle("applied", true, "applied", result);
      report("applied", true, result);
    }
  } finally {
    await ledger?.close();
  }

  const executed = reports.filter((r) => r.executed && r.outcome === "applied").length;
  ctx.setOutcome({ projected: plan.items.length, realized: ctx.dryRun ? null : reports.filter((r) => IN_PLACE.has(r.outcome)).length, confidence: 1 });
  const failed = reports.filter((r) => r.error);
  if (failed.length === 0) return { plan: plan.checksum, status: ctx.dryRun ? "dry-run" : "applied", executed, items: reports };

  const first = failed[0]!.error!;
  const done = reports.length - failed.length;
  const status = done > 0 ? "partial" : "failed";
  const busy = failed.some((r) => r.outcome === "in-progress");
  throw new KitError(first.code as ErrorCode, `${failed.length} of ${reports.length} item(s) did not apply${ctx.dryRun ? " (dry run)" : ""}; first: ${failed[0]!.id}: ${first.message}`, {
    detail: { status, plan: plan.checksum, executed, items: reports },
    hint: busy
      ? `another apply is running this plan: re-run \`${ctx.tool.name} apply --plan ${ctx.flags.plan}\` later, or add --wait`
      : first.code === "PRECONDITION_FAILED"
        ? "the targets changed since planning: the applied items stay applied; plan the rest again and have it approved"
        : `re-running \`${ctx.tool.name} apply --plan ${ctx.flags.plan}\` keeps what applied and reports the stored outcome of the rest`,
  });
}

// ————————————————————————————————————————— the commands the kit gives a mutating tool

const APPLY_ENV: EnvVar[] = [
  { name: GATE_PUBLIC_KEY_ENV, scope: "read", required: true, description: "The gate's Ed25519 public key (PEM or base64 DER): approvals are checked with it." },
  { name: POLICY_ENV, scope: "config", required: true, description: "The standing policy file; a plan approved under another version is refused." },
  { name: LEDGER_ENV, scope: "config", description: "The ledger: a postgres:// URL shared by many machines, or a SQLite file (default: ledger.sqlite beside the plan)." },
  { name: "AGENT_ACTOR", scope: "config", description: "Who applies, for the action log (default: user@host)." },
];

const planFlag = describe(z.string().check(z.minLength(1)), "The plan: a plan.json path, or the run dir that holds it.");

/** `apply`, `target list` and `action list` for a tool whose mutations are `m`. */
export function mutationCommands(tool: string, m: Mutations): CommandSpec<any, any>[] {
  const toolEnv = m.env ?? [];
  const apply = defineCommand({
    verb: "apply",
    tier: 1,
    rw: "write",
    summary: "Apply an approved plan: each item once, through the ledger, resuming where a previous run stopped.",
    description:
      "Executes only a plan the gate approved, unexpired, under the current policy, with an intact checksum. Each item's preconditions are re-checked first; a re-run never re-applies a confirmed item. With --dry-run, checks everything and reports what would execute. A partial apply is an error whose detail lists every item's outcome.",
    flags: z.object({ plan: planFlag }),
    result: applyResult,
    schema: `${tool}.apply@1`,
    errors: ["NOT_FOUND", "MISSING_ARTIFACT", "PLAN_INVALID", "PLAN_FAILED", "PLAN_TAMPERED", "PLAN_EXPIRED", "POLICY_STALE", "APPROVAL_REQUIRED", "APPROVAL_INVALID", "APPROVAL_MISMATCH", "PRECONDITION_FAILED", "CONFLICT", "IN_PROGRESS", "MISSING_ENV", "INVALID_INPUT", "UPSTREAM_ERROR", ...(m.errors ?? [])],
    env: [...APPLY_ENV, ...toolEnv],
    outcome: "count",
    examples: [
      { argv: ["--plan", "./run"], summary: "Apply the approved plan in ./run." },
      { argv: ["--plan", "./run/plan.json", "--dry-run"], summary: "Check it and list what would execute." },
    ],
    run: (ctx) => applyPlan(m, ctx),
  });

  const targetList = defineCommand({
    resource: "target",
    verb: "list",
    tier: 1,
    rw: "read",
    summary: "List the live state of every resource a plan targets: the read-back the gate judges it by.",
    flags: z.object({ plan: planFlag }),
    result: z.object({ items: z.array(z.object({ id: z.string(), exists: z.boolean(), version: z.nullable(z.string()), bytes: z.int(), items: describe(z.array(z.string()), "The plan items that touch it.") })) }),
    schema: `${tool}.target.list@1`,
    errors: ["NOT_FOUND", "MISSING_ARTIFACT", "PLAN_INVALID", "INVALID_INPUT", ...(m.errors ?? [])],
    env: toolEnv,
    list: { defaultLimit: 50, maxLimit: 1000 },
    async run(ctx) {
      const plan = readPlanFile(resolvePlanPath(ctx.flags.plan, ctx.cwd), ctx.tool.name);
      const byTarget = new Map<string, string[]>();
      for (const it of plan.items) for (const t of it.target_resource_ids) byTarget.set(t, [...(byTarget.get(t) ?? []), it.id]);
      const rows = [];
      for (const [id, items] of byTarget) {
        const live = await m.readTarget(id, { plan, env: ctx.env, signal: ctx.signal });
        rows.push({ id, exists: live !== null, version: live?.version ?? null, bytes: live?.bytes ?? 0, items });
      }
      return { items: ctx.paginate(rows, "targets") };
    },
  });

  const actionList = defineCommand({
    resource: "action",
    verb: "list",
    tier: 1,
    rw: "read",
    summary: "List the action log: every executed or reconciled item, who ran it, its key and outcome.",
    flags: z.object({ plan: describe(z.optional(z.string().check(z.minLength(1))), "Only this plan's actions; its ledger is found beside it unless AGENT_LEDGER_URL is set.") }),
    result: z.object({
      items: z.array(
        z.object({ at: z.string(), actor: z.string(), tool: z.string(), action: z.string(), plan: z.string(), item: z.string(), idempotency_key: z.string(), outcome: z.string(), executed: z.boolean(), started_at: z.string(), finished_at: z.string() }),
      ),
    }),
    schema: `${tool}.action.list@1`,
    errors: ["NOT_FOUND", "MISSING_ARTIFACT", "MISSING_FLAG", "PLAN_INVALID", "UPSTREAM_ERROR"],
    env: [APPLY_ENV[2]!],
    list: { defaultLimit: 50, maxLimit: 1000 },
    async run(ctx) {
      const url = ctx.env[LEDGER_ENV];
      let plan: Plan | null = null;
      let fallback: string | null = null;
      if (ctx.flags.plan) {
        const path = resolvePlanPath(ctx.flags.plan, ctx.cwd);
        plan = readPlanFile(path, ctx.tool.name);
        fallback = ledgerBeside(path);
      } else if (!url) throw new KitError("MISSING_FLAG", "give --plan, or set AGENT_LEDGER_URL to read a shared ledger", { hint: "add --plan ./run" });
      // A read never creates a ledger: no file yet means nothing has been applied.
      if (!url && fallback && !existsSync(fallback)) return { items: ctx.paginate([], "actions") };
      const ledger = await openLedger(url, fallback ?? "");
      try {
        const rows = await ledger.actions({ plan: plan?.checksum, tool: ctx.tool.name });
        const iso = (ms: number) => new Date(ms).toISOString();
        return {
          items: ctx.paginate(
            rows.map((r) => ({ at: iso(r.at), actor: r.actor, tool: r.tool, action: r.action, plan: r.plan, item: r.item, idempotency_key: r.key, outcome: r.outcome, executed: r.executed, started_at: iso(r.startedAt), finished_at: iso(r.finishedAt) })),
            "actions",
          ),
        };
      } finally {
        await ledger.close();
      }
    },
  });
  return [apply, targetList, actionList];
}
