/**
 * contract §8 on the tool's side: the kit writes plans, admits approved ones,
 * and gives a mutating tool `apply`, `target list` (the gate's read-back) and
 * `action list`. The item protocol itself is in apply.ts.
 */
import { dirname, join } from "node:path";
import { existsSync } from "node:fs";
import * as z from "zod/mini";
import { LEDGER_ENV, openLedger } from "./ledger/open.ts";
import type { Mutations } from "./actions.ts";
import { describe } from "../declare/annotate.ts";
import { applyItems, IN_PLACE, ITEM_OUTCOMES, LEASE_ENV } from "./apply.ts";
import type { CommandContext } from "../runtime/context.ts";
import { defineCommand, type CommandSpec, type EnvVar } from "../declare/define.ts";
import { asKitError, KitError, type ErrorCode } from "../output/errors.ts";
import { assertIntact, assertUnexpired, buildPlan, PLAN_FILE, readPlanFile, resolvePlanPath, writePlanFile, type ItemInput, type Plan } from "./plan.ts";
import { POLICY_ENV, readPolicy } from "./policy.ts";
import { sha256 } from "../pipeline/hash.ts";

export type { ActionSpec, ExecContext, Mutations, ReadContext, TargetState } from "./actions.ts";
export const GATE_PUBLIC_KEY_ENV = "AGENT_GATE_PUBLIC_KEY";

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
  ctx.runDir.create();
  const path = join(ctx.runDir.path, PLAN_FILE);
  const base = { tool: ctx.tool.name, toolVersion: ctx.tool.version, now: ctx.now(), ttlSeconds };
  let plan: Plan;
  try {
    const made = await make();
    plan = buildPlan({ ...base, ...made });
  } catch (e) {
    const err = asKitError(e);
    // A run dir that is gone (a fresh one, removed because its input was missing) holds no stale plan to guard against.
    if (existsSync(ctx.runDir.path)) writePlanFile(path, buildPlan({ ...base, context: {}, items: [], failure: { code: err.code, message: err.message } }));
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

/** Without AGENT_LEDGER_URL, a plan's ledger is a SQLite file beside it. */
const ledgerBeside = (planPath: string): string => join(dirname(planPath), "ledger.sqlite");

async function applyPlan(m: Mutations, ctx: CommandContext<{ plan: string }>): Promise<z.input<typeof applyResult>> {
  const planPath = resolvePlanPath(ctx.flags.plan, ctx.cwd);
  const plan = readPlanFile(planPath, ctx.tool.name);
  await admit(plan, ctx.env, ctx.now(), ctx.tool.name);
  for (const it of plan.items)
    if (!m.actions[it.action]) throw new KitError("PLAN_INVALID", `item ${it.id} has the action '${it.action}', which ${ctx.tool.name} does not know`, { allowed: Object.keys(m.actions) });

  const ledger = ctx.dryRun ? null : await openLedger(ctx.env[LEDGER_ENV], ledgerBeside(planPath));
  let run;
  try {
    run = await applyItems({ plan, mutations: m, tool: ctx.tool.name, env: ctx.env, signal: ctx.signal, now: ctx.now, wait: ctx.wait, ledger });
  } finally {
    await ledger?.close();
  }
  const { reports, stoppedBy } = run;

  const executed = reports.filter((r) => r.executed && (r.outcome === "applied" || r.outcome === "unconfirmed")).length;
  ctx.setOutcome({ projected: plan.items.length, realized: ctx.dryRun ? null : reports.filter((r) => IN_PLACE.has(r.outcome)).length, confidence: 1 });
  const failed = reports.filter((r) => r.error);
  if (failed.length === 0) return { plan: plan.checksum, status: ctx.dryRun ? "dry-run" : "applied", executed, items: reports };

  const first = failed[0]!.error!;
  const done = reports.length - failed.length;
  const status = done > 0 ? "partial" : "failed";
  const busy = failed.some((r) => r.outcome === "in-progress");
  const again = `\`${ctx.tool.name} apply --plan ${ctx.flags.plan}\``;
  const detail = { status, plan: plan.checksum, executed, items: reports };
  // A ledger that failed outranks the items' own failures: retrying is the next step.
  if (stoppedBy)
    throw new KitError(stoppedBy.code, `the ledger failed after ${done} of ${reports.length} item(s) were in place: ${stoppedBy.message}`, { detail, hint: `once the ledger is reachable, re-run ${again}: it resumes, reconciling what was left unconfirmed` });
  throw new KitError(first.code as ErrorCode, `${failed.length} of ${reports.length} item(s) did not apply${ctx.dryRun ? " (dry run)" : ""}; first: ${failed[0]!.id}: ${first.message}`, {
    detail,
    hint: busy
      ? `another apply is running this plan: re-run ${again} later, or add --wait`
      : first.code === "PRECONDITION_FAILED"
        ? "the targets changed since planning: the applied items stay applied; plan the rest again and have it approved"
        : `re-running ${again} keeps what applied, tries again what failed for a passing reason, and reports the stored outcome of the rest`,
  });
}

// ————————————————————————————————————————— the commands the kit gives a mutating tool

const APPLY_ENV: EnvVar[] = [
  { name: GATE_PUBLIC_KEY_ENV, scope: "read", required: true, description: "The gate's Ed25519 public key (PEM or base64 DER): approvals are checked with it." },
  { name: POLICY_ENV, scope: "config", required: true, description: "The standing policy file; a plan approved under another version is refused." },
  { name: LEDGER_ENV, scope: "config", description: "The ledger: a postgres:// URL shared by many machines, or a SQLite file (default: ledger.sqlite beside the plan)." },
  { name: "AGENT_ACTOR", scope: "config", description: "Who applies, for the action log (default: user@host)." },
  { name: LEASE_ENV, scope: "config", description: "How long an item's ledger lease lasts without renewal, in ms (default 60000); a heartbeat renews it while the item executes." },
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
