/**
 * contract §8, where an approved plan acts. The gate signs the real path of
 * the folder a plan acts on; apply resolves that folder again when it starts,
 * before each item and right before each item's irreversible step, and
 * refuses (ROOT_CHANGED) once it resolves anywhere else: an approved staging
 * folder swapped for a link to a production copy is never written through.
 */
import { realpathSync } from "node:fs";
import { KitError } from "../../output/index.ts";
import { pinRoot } from "../../pipeline/index.ts";
import type { Mutations } from "../actions.ts";
import type { Plan } from "../plan.ts";
import { policyRoots, within, type Policy } from "../policy.ts";

export interface RootGuard {
  /** Throws ROOT_CHANGED when the folder no longer resolves to the approved real path. */
  check(): void;
}

const changed = (message: string): KitError =>
  new KitError("ROOT_CHANGED", message, {
    hint: "nothing more is written: put the approved folder back, or plan again and have the new plan approved",
  });

/** The guard of the plan's root, checked once now; null when the tool declares no root. */
export function rootGuard(
  plan: Plan,
  m: Mutations,
  tool: string,
  policy: Policy,
  policyPath: string,
): RootGuard | null {
  const field = m.root;
  if (!field) return null;
  const given = plan.context[field];
  if (typeof given !== "string" || given === "")
    throw new KitError("PLAN_INVALID", `the plan does not say where it acts (context.${field})`, {
      hint: "plan again with the tool",
    });
  const approved = plan.approval?.roots?.[field];
  if (typeof approved !== "string")
    throw changed(`the approval names no folder for context.${field}; have the gate review the plan again`);
  const roots = policyRoots(policy, policyPath, tool);
  if (!roots.some((r) => within(r, approved)))
    throw changed(`the approved folder ${approved} is outside the roots policy ${policy.version} names for ${tool}`);
  const guard = {
    check(): void {
      let real: string;
      try {
        real = realpathSync(given);
      } catch (e) {
        throw changed(
          `${given}, the folder the plan was approved for, cannot be resolved now (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        );
      }
      if (real !== approved) throw changed(`${given} now resolves to ${real}, not to ${approved} as approved`);
    },
  };
  guard.check();
  pinRoot(given, approved);
  return guard;
}
