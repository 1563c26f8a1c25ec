/**
 * The kit's surface for tools that change things: plans, their items, and
 * the apply, target and action commands. Apart from `index.ts` so that a
 * read command never loads the plan and ledger machinery.
 */
export {
  mutationCommands,
  type ActionSpec,
  type Effect,
  type ExecContext,
  type Mutations,
  type ReadContext,
  type TargetState,
} from "./mutations/commands.ts";
export { planResult, ttlFlag, writePlan } from "./mutations/write-plan.ts";
export type { ItemInput, Plan, PlanItem, Precondition } from "./mutations/plan.ts";
export { POLICY_ENV } from "./mutations/policy.ts";
