/**
 * The kit's surface for tools that change things: plans, their items, and
 * the apply, target and action commands. Apart from `index.ts` so that a
 * read command never loads the plan and ledger machinery.
 */
export {
  type ActionSpec,
  type Effect,
  type ExecContext,
  type ItemInput,
  type Mutations,
  mutationCommands,
  type Plan,
  type PlanItem,
  POLICY_ENV,
  type Precondition,
  PLAN_LIST,
  planResult,
  type ReadContext,
  showItems,
  type TargetState,
  ttlFlag,
  writePlan,
} from "./mutations/index.ts";
