/**
 * Trust boundaries (contract §8): what the gate runs and where a plan may
 * act. Everything in a plan is written by an agent, so the gate trusts none
 * of it: it runs only fleet tools it knows, found beside itself, with an
 * environment cut down to what the read-back declares it reads; and it
 * approves only plans whose root lies inside a root the standing policy
 * names for that tool.
 */
import { failpointEnv } from "../kit/mutations/failpoints.ts";
import { KitError } from "../kit/output/errors.ts";
import type { Plan } from "../kit/mutations/plan.ts";
import { policyRoots, realOf, within, type Policy } from "../kit/mutations/policy.ts";
import { fleetTool } from "../kit/runtime/multicall.ts";

/** The fleet tools whose plans the gate judges, and the plan context field that names where each acts. */
export const FLEET_TOOLS: Readonly<Record<string, { readonly rootField: string }>> = {
  seo: { rootField: "root" },
  brain: { rootField: "repo" },
};

/** The argv that runs the fleet tool the plan names: only a known name, only the one installed with the gate. */
export function toolBinary(plan: Plan): string[] {
  if (!Object.hasOwn(FLEET_TOOLS, plan.tool))
    throw new KitError(
      "POLICY_DENIED",
      `the gate judges plans of ${Object.keys(FLEET_TOOLS).join(", ")} only, not of '${String(plan.tool).slice(0, 80)}'`,
      {
        allowed: Object.keys(FLEET_TOOLS),
        got: plan.tool,
        hint: "plan with a fleet tool; the gate never runs a binary a plan names",
      },
    );
  return fleetTool(plan.tool);
}

/**
 * Refuses (POLICY_DENIED, exit 5) a plan whose root is not inside a root the
 * policy names for its tool; returns the root's real path, keyed by its
 * context field: what the approval binds, so apply can refuse a root swapped since.
 */
export function assertInScope(plan: Plan, policy: Policy, policyPath: string): Record<string, string> {
  const field = FLEET_TOOLS[plan.tool]!.rootField;
  const given = plan.context[field];
  if (typeof given !== "string" || given === "")
    throw new KitError("PLAN_INVALID", `the plan does not say where it acts (context.${field})`, {
      hint: "plan again with the tool",
    });
  const roots = policyRoots(policy, policyPath, plan.tool);
  const at = realOf(given);
  if (!roots.some((r) => within(r, at)))
    throw new KitError(
      "POLICY_DENIED",
      `the plan acts on ${at}, outside the roots policy ${policy.version} names for ${plan.tool}${roots.length ? ` (${roots.join(", ")})` : " (none)"}`,
      {
        allowed: roots,
        got: at,
        hint: `a plan may only act inside the roots of the standing policy; add the folder to roots.${plan.tool} in the policy file if it belongs there`,
      },
    );
  return { [field]: at };
}

/** What every process needs to run at all (and, in a test build only, its failpoints); nothing in it is a credential. */
const BASE_ENV = ["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", ...failpointEnv()];

/**
 * The read-back's environment: the base, plus the variables the tool's
 * `target list` declares, minus any of write scope and the ledger (whose URL
 * carries a password and which a read-back never needs).
 */
export function readBackEnv(
  env: Readonly<Record<string, string | undefined>>,
  declared: readonly { name: string; scope: string }[],
  ledgerEnv: string,
): Record<string, string> {
  const names = new Set([
    ...BASE_ENV,
    ...declared.filter((v) => v.scope !== "write" && v.name !== ledgerEnv).map((v) => v.name),
  ]);
  const out: Record<string, string> = {};
  for (const name of names) if (env[name] !== undefined) out[name] = env[name]!;
  return out;
}
