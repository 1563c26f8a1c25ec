/** contract §8, the write path: plans, admission, the apply loop through the ledger, approvals and the policy. */
export type { ActionSpec, Effect, ExecContext, Mutations, ReadContext, TargetState } from "./actions.ts";
export { admit, approvalIdOf, GATE_PUBLIC_KEY_ENV } from "./admit.ts";
export { applyItems, type ApplyRun } from "./apply/loop.ts";
export { IN_PLACE, ITEM_OUTCOMES, type ItemOutcome, type ItemReport } from "./apply/report.ts";
export { mutationCommands } from "./commands.ts";
export { FAILPOINT_ENV } from "./failpoints.ts";
export { isLedgerFailure, LEDGER_ENV, type LedgerOptions, openLedger, registerLedgerEngine } from "./ledger/open.ts";
export {
  type ActionLogRow,
  type Claim,
  type ClaimRequest,
  decide,
  type Fence,
  FRESH_CLAIM,
  itemRow,
  type Ledger,
  type LedgerItemRow,
  logRow,
  MIGRATIONS,
  type Outcome,
  type Release,
  type Settlement,
} from "./ledger/ledger.ts";
export { actionLog } from "./read-commands.ts";
export {
  buildPlan,
  PLAN_FILE,
  readPlanFile,
  resolvePlanPath,
  type ItemInput,
  type Plan,
  type PlanItem,
  type Precondition,
} from "./plan.ts";
export { POLICY_ENV, readPolicy, type Policy } from "./policy.ts";
export { planResult, ttlFlag, writePlan } from "./write-plan.ts";
export { countBy, PLAN_LIST, showItems, type ShownItems } from "./shown-items.ts";
