/**
 * contract §8, `apply`: admit the plan, run its items through the ledger
 * (apply/loop.ts), and answer with the counts of its outcomes and the first
 * page of its items (shown-items.ts). A partial or failed apply is an error
 * whose detail lists every item and whose hint is the next step; so is a
 * cancelled one (apply/stopping.ts).
 */
import { refuseSecrets } from "./plan-secrets.ts";
import { dirname, join } from "node:path";
import * as z from "zod/mini";
import { describe } from "../declare/annotate.ts";
import { defineCommand, type CommandSpec, type EnvVar } from "../declare/define.ts";
import { KitError, REDISPATCH_CODES, type ErrorCode } from "../output/errors.ts";
import type { CommandContext } from "../runtime/context.ts";
import { actionOf, type Mutations, writesOf } from "./actions.ts";
import { admit, GATE_PUBLIC_KEY_ENV } from "./admit.ts";
import { LEASE_ENV } from "./apply/lease.ts";
import { applyItems } from "./apply/loop.ts";
import { rootGuard } from "./apply/root.ts";
import { IN_PLACE, ITEM_OUTCOMES, type ItemReport } from "./apply/report.ts";
import { Stopping } from "./apply/stopping.ts";
import { PLAN_LIST, showItems } from "./shown-items.ts";
import { LEDGER_ENV, openLedger } from "./ledger/open.ts";
import { keyIsDerived, readPlanFile, resolvePlanPath, type Plan } from "./plan.ts";
import { POLICY_ENV } from "./policy.ts";

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
  status: describe(
    z.enum(["applied", "dry-run"]),
    "applied: every item is in place; dry-run: nothing was executed. Partial and failed runs are errors whose detail has the same shape.",
  ),
  executed: z.int(),
  total: describe(z.int(), "How many items the plan holds."),
  counts: describe(z.record(z.string(), z.int()), "How many items per outcome."),
  items: describe(z.array(itemReport), "The first page of the items (--limit, --cursor)."),
});

export const APPLY_ENV: readonly EnvVar[] = [
  {
    name: GATE_PUBLIC_KEY_ENV,
    scope: "read",
    required: true,
    description: "The gate's Ed25519 public key (PEM or base64 DER): approvals are checked with it.",
  },
  {
    name: POLICY_ENV,
    scope: "config",
    required: true,
    description: "The standing policy file; a plan approved under another version is refused.",
  },
  {
    name: LEDGER_ENV,
    scope: "config",
    description:
      "The ledger: a postgres:// URL shared by many machines, or a SQLite file (default: ledger.sqlite beside the plan).",
  },
  { name: "AGENT_ACTOR", scope: "config", description: "Who applies, for the action log (default: user@host)." },
  {
    name: LEASE_ENV,
    scope: "config",
    description:
      "How long an item's ledger lease lasts without renewal, in ms (default 60000); a heartbeat renews it while the item executes.",
  },
];

export const planFlag = describe(
  z.string().check(z.minLength(1)),
  "The plan: a plan.json path, or the run dir that holds it.",
);

/** Without AGENT_LEDGER_URL, a plan's ledger is a SQLite file beside it. */
export const ledgerBeside = (planPath: string): string => join(dirname(planPath), "ledger.sqlite");

async function applyPlan(m: Mutations, ctx: CommandContext<{ plan: string }>): Promise<z.input<typeof applyResult>> {
  const planPath = resolvePlanPath(ctx.flags.plan, ctx.cwd);
  const plan = readPlanFile(planPath, ctx.tool.name);
  const policy = await admit(plan, ctx.env, ctx.now(), ctx.tool.name);
  // A secret this phase holds (a write credential the planning phase never saw) is not written by a plan either.
  refuseSecrets(plan, (text) => ctx.holdsSecret(text));
  for (const it of plan.items) {
    if (!actionOf(m, it.action))
      throw new KitError(
        "PLAN_INVALID",
        `item ${it.id} has the action '${it.action}', which ${ctx.tool.name} does not know`,
        { allowed: Object.keys(m.actions) },
      );
    if (!keyIsDerived(plan, it))
      throw new KitError("PLAN_INVALID", `item ${it.id}'s idempotency_key is not the key of its change`);
  }
  const root = rootGuard(plan, m, ctx.tool.name, policy, ctx.env[POLICY_ENV]!);
  const ledger = ctx.dryRun ? null : await openLedger(ctx.env[LEDGER_ENV], ledgerBeside(planPath), ctx);
  const stopping = new Stopping(ctx, plan);
  let run: Awaited<ReturnType<typeof applyItems>> | null = null;
  try {
    run = await applyItems({
      plan,
      mutations: m,
      tool: ctx.tool.name,
      env: ctx.env,
      signal: ctx.signal,
      now: ctx.now,
      wait: ctx.wait,
      ledger,
      root,
      onItem: (done, total, report) => {
        stopping.item(report);
        ctx.progress(ctx.dryRun ? "checked" : "applied", done, total);
      },
      identity: { credential: ctx.credential, secretOut: ctx.secretOut, redact: ctx.redact },
    });
  } finally {
    await ledger?.close();
    stopping.end(run?.reports ?? null);
  }
  // Answered by the signal's CANCELLED, whose detail the wind-down filled in.
  if (ctx.signal.aborted) throw new KitError("CANCELLED", `interrupted by ${String(ctx.signal.reason)}`);
  ctx.setOutcome({
    projected: plan.items.length,
    realized: ctx.dryRun ? null : run.reports.filter((r) => IN_PLACE.has(r.outcome)).length,
    confidence: 1,
  });
  return answer(ctx, plan, run.reports, run.stoppedBy);
}

/** Every item in place (or a clean dry run) is the result; anything else is the error that says what to do next. */
function answer(
  ctx: CommandContext<{ plan: string }>,
  plan: Plan,
  reports: ItemReport[],
  stoppedBy: KitError | null,
): z.input<typeof applyResult> {
  const executed = reports.filter((r) => r.executed && (r.outcome === "applied" || r.outcome === "unconfirmed")).length;
  const failed = reports.filter((r) => r.error);
  if (failed.length === 0) {
    const where = { tool: ctx.tool.name, plan: ctx.flags.plan };
    const shown = showItems(ctx, reports, where, (r) => r.outcome);
    return { plan: plan.checksum, status: ctx.dryRun ? "dry-run" : "applied", executed, ...shown };
  }
  const first = failed[0]!.error!;
  const done = reports.length - failed.length;
  const status = done > 0 ? "partial" : "failed";
  const busy = failed.some((r) => r.outcome === "in-progress");
  const again = `\`${ctx.tool.name} apply --plan ${ctx.flags.plan}\``;
  const detail = { status, plan: plan.checksum, executed, items: reports };
  // A ledger that failed outranks the items' own failures: retrying is the next step.
  if (stoppedBy)
    throw new KitError(
      stoppedBy.code,
      `the ledger failed after ${done} of ${reports.length} item(s) were in place: ${stoppedBy.message}`,
      {
        detail,
        hint: `once the ledger is reachable, re-run ${again}: it resumes, reconciling what was left unconfirmed`,
      },
    );
  throw new KitError(
    first.code as ErrorCode,
    `${failed.length} of ${reports.length} item(s) did not apply${ctx.dryRun ? " (dry run)" : ""}; first: ${failed[0]!.id}: ${first.message}`,
    {
      detail,
      hint: busy
        ? `another apply is running this plan: re-run ${again} later, or add --wait`
        : REDISPATCH_CODES.has(first.code)
          ? `the job needs re-dispatch with fresh credentials: the applied items stay applied, and ${again} with them executes nothing twice`
          : first.code === "ROOT_CHANGED"
            ? "the folder the plan acts on was swapped or moved after approval: the applied items stay applied, nothing more was written; put the approved folder back and re-run, or plan again"
            : first.code === "PRECONDITION_FAILED"
              ? "the targets changed since planning: the applied items stay applied; plan the rest again and have it approved"
              : `re-running ${again} keeps what applied, tries again what failed for a passing reason, and reports the stored outcome of the rest`,
    },
  );
}

export function applyCommand(tool: string, m: Mutations): CommandSpec<any, any> {
  return defineCommand({
    verb: "apply",
    tier: 1,
    rw: "write",
    summary: "Apply an approved plan: each item once, through the ledger, resuming where a previous run stopped.",
    description:
      "Executes only a plan the gate approved (or a person the policy names as an approver, with their key), unexpired, under the current policy, with an intact checksum. Each item's preconditions are re-checked first; a re-run never re-applies a confirmed item. With --dry-run, checks everything and reports what would execute. A partial apply is an error whose detail lists every item's outcome.",
    flags: z.object({ plan: planFlag }),
    result: applyResult,
    schema: `${tool}.apply@1`,
    errors: [
      "NOT_FOUND",
      "MISSING_ARTIFACT",
      "PLAN_INVALID",
      "PLAN_FAILED",
      "PLAN_TAMPERED",
      "PLAN_EXPIRED",
      "POLICY_STALE",
      "APPROVAL_REQUIRED",
      "APPROVAL_INVALID",
      "APPROVAL_MISMATCH",
      "POLICY_DENIED",
      "ROOT_CHANGED",
      "PRECONDITION_FAILED",
      "CONFLICT",
      "IN_PROGRESS",
      "MISSING_ENV",
      "INVALID_INPUT",
      "UPSTREAM_ERROR",
      ...(m.errors ?? []),
    ],
    env: [...APPLY_ENV, ...(m.env ?? [])],
    outcome: "count",
    list: PLAN_LIST,
    ...(m.maxDuration === undefined ? {} : { maxDuration: m.maxDuration }),
    ...(m.secretsOut ? { secretsOut: m.secretsOut } : {}),
    writes: writesOf(m),
    next: ["{tool} action list --plan {flag:plan}"],
    examples: [
      { argv: ["--plan", "./run"], summary: "Apply the approved plan in ./run." },
      { argv: ["--plan", "./run/plan.json", "--dry-run"], summary: "Check it and list what would execute." },
    ],
    run: (ctx) => applyPlan(m, ctx),
  });
}
