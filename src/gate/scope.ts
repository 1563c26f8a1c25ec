/**
 * Trust boundaries (contract §8): what the gate runs and where a plan may
 * act. Everything in a plan is written by an agent, so the gate trusts none
 * of it: it runs only a tool the standing policy names, found and checked as
 * the policy says (a path and its sha256, or the fleet's tool installed
 * beside the gate), with an environment cut down to what the read-back
 * declares it reads; and it approves only plans whose root (the context
 * field the tool declares) lies inside a root the policy names for that tool.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { failpointEnv } from "../kit/mutations/failpoints.ts";
import { KitError } from "../kit/output/errors.ts";
import type { Plan } from "../kit/mutations/plan.ts";
import { policyRoots, realOf, within, type Policy } from "../kit/mutations/policy.ts";
import { fleetTool, fleetTools } from "../kit/runtime/multicall.ts";

/** A tool the policy governs: the argv that runs it, and the check made before each run. */
export interface GovernedTool {
  readonly name: string;
  readonly argv: string[];
  /** Throws POLICY_DENIED when the binary is not the one the policy trusts (its sha256 changed). */
  verify(): void;
}

const sha256Of = (path: string): string => {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch (e) {
    throw new KitError("NOT_FOUND", `the tool binary ${path} cannot be read: ${(e as NodeJS.ErrnoException).code}`, {
      got: path,
      hint: "the policy's tools entry must name the tool's binary; build it there, or fix the path",
    });
  }
};

/** The policy entry that would govern `name`, as JSON a person pastes into the policy's `tools`. */
export const entryFor = (name: string): string =>
  JSON.stringify({ tools: { [name]: { path: `./bin/${name}`, sha256: `<sha256sum of ./bin/${name}>` } } });

/**
 * The tool the plan names, as the policy governs it. A plan of a tool the
 * policy does not name is POLICY_DENIED, with the entry to add in the hint;
 * the gate never runs a binary a plan names.
 */
export function governedTool(plan: Plan, policy: Policy, policyPath: string): GovernedTool {
  const name = String(plan.tool);
  const trust = Object.hasOwn(policy.tools ?? {}, name) ? policy.tools![name] : undefined;
  const named = Object.keys(policy.tools ?? {});
  if (!trust)
    throw new KitError(
      "POLICY_DENIED",
      `policy ${policy.version} does not govern the tool '${name.slice(0, 80)}': the gate judges plans of ${named.length ? named.join(", ") : "no tool"} only`,
      {
        allowed: named,
        got: plan.tool,
        hint: `if '${name.slice(0, 80)}' is yours to govern, add it to the policy file ${policyPath}: ${entryFor(/^[a-z][a-z0-9-]*$/.test(name) ? name : "TOOL")} (with its actions and roots); the gate never runs a binary a plan names`,
      },
    );
  if ("fleet" in trust) {
    if (!fleetTools().includes(name))
      throw new KitError("POLICY_DENIED", `no fleet tool '${name}' is installed beside the gate`, {
        allowed: fleetTools(),
        got: name,
        hint: `policy ${policy.version} names ${name} as a fleet tool ({ "fleet": true }); name its binary instead: ${entryFor(name)}`,
      });
    return { name, argv: fleetTool(name), verify() {} };
  }
  const path = resolve(dirname(policyPath), trust.path);
  return {
    name,
    argv: [path],
    verify() {
      const found = sha256Of(path);
      if (found !== trust.sha256)
        throw new KitError("POLICY_DENIED", `the binary ${path} is not the ${name} policy ${policy.version} trusts`, {
          detail: { expected: trust.sha256, found },
          hint: `if this build is the one to trust, set tools.${name}.sha256 to ${found} in ${policyPath}`,
        });
    },
  };
}

/**
 * Refuses (POLICY_DENIED, exit 5) a plan whose root is not inside a root the
 * policy names for its tool; returns the root's real path, keyed by the
 * context field the tool declares: what the approval binds, so apply can
 * refuse a root swapped since. A tool that declares no root binds none.
 */
export function assertInScope(
  plan: Plan,
  policy: Policy,
  policyPath: string,
  field: string | null,
): Record<string, string> {
  if (field === null) return {};
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
