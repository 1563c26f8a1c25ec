/**
 * contract §8: plan.json, the enforceable changeset. The kit owns its shape,
 * canonical form and checksum; a tool supplies only the items.
 *
 * Checksum: sha256 over the RFC 8785 (JCS) canonical JSON of the plan without
 * the four fields the gate fills in afterwards (`checksum`, `policy_version`,
 * `approval_id`, `approval`). Idempotency key: sha256 over the JCS form of
 * `{tool, action, scope, params}` (scope: the plan's `context`, e.g. the
 * folder edited), so planning the same change again gives the same key, and
 * the same edit to another folder a different one. Item id: the key's first
 * 12 hex digits.
 */
import canonicalize from "canonicalize";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { KitError } from "../output/index.ts";
import { sha256, writeAtomic } from "../pipeline/index.ts";
import { boundedReason, itemProblem } from "./plan-items.ts";

export const PLAN_FORMAT = 1;
export const PLAN_FILE = "plan.json";

export interface Precondition {
  /** A target resource id. */
  readonly target: string;
  /** The target's version (a content hash) the item expects to find; null: the target must not exist. */
  readonly version: string | null;
}

export interface PlanItem {
  readonly id: string;
  readonly action: string;
  readonly reason: string;
  readonly params: Record<string, unknown>;
  readonly idempotency_key: string;
  readonly target_resource_ids: string[];
  readonly preconditions: Precondition[];
  /** Advisory only: the gate never reads it. */
  readonly projected_impact: Record<string, unknown> | null;
}

export interface Approval {
  /** What was signed: the plan checksum, policy version and expiry, and where the plan may act. */
  readonly checksum: string;
  readonly policy_version: string;
  readonly expiry: string;
  /** The real path (links resolved) of each folder the plan acts on, keyed by its context field, as the gate approved it. */
  readonly roots: Readonly<Record<string, string>>;
  readonly mode: "policy" | "human";
  readonly approved_by: string;
  readonly approved_at: string;
  /** Ed25519 over approvalMessage(…), base64. */
  readonly signature: string;
}

export interface Plan {
  readonly plan_format: number;
  readonly tool: string;
  readonly tool_version: string;
  readonly created_at: string;
  readonly expiry: string;
  /** `failed`: planning stopped part-way; such a plan can never be applied. */
  readonly status: "ready" | "failed";
  readonly failure: { code: string; message: string } | null;
  /** Tool-specific scope the executors need (e.g. the folder edited), covered by the checksum. */
  readonly context: Record<string, unknown>;
  readonly items: PlanItem[];
  checksum: string;
  policy_version: string | null;
  approval_id: string | null;
  approval: Approval | null;
}

/** What a tool gives for one item; the kit derives key, id and preconditions' form. */
export interface ItemInput {
  readonly action: string;
  readonly reason: string;
  readonly params: Record<string, unknown>;
  readonly preconditions: Precondition[];
  readonly projected_impact?: Record<string, unknown>;
}

export const canonicalJson = (value: unknown): string => {
  const text = canonicalize(value);
  if (text === undefined) throw new KitError("INTERNAL", "a value cannot be put in canonical JSON");
  return text;
};

export const idempotencyKey = (tool: string, action: string, scope: unknown, params: unknown): string =>
  sha256(canonicalJson({ tool, action, scope, params }));

/** A key is derived, never taken from a plan: the ledger and a tool's own records (brain's trailers) know an item by it. */
export const keyIsDerived = (plan: Pick<Plan, "tool" | "context">, it: PlanItem): boolean =>
  it.idempotency_key === idempotencyKey(plan.tool, it.action, plan.context, it.params);

export function planChecksum(
  plan: Omit<Plan, "checksum" | "policy_version" | "approval_id" | "approval"> & Partial<Plan>,
): string {
  const { checksum: _c, policy_version: _p, approval_id: _i, approval: _a, ...covered } = plan;
  return sha256(canonicalJson(covered));
}

/** What an approval signs: a plan, under one policy version, until its expiry, acting on these real folders; and a person's name, when a person signs. */
export interface Approved {
  readonly checksum: string;
  readonly policyVersion: string;
  readonly expiry: string;
  readonly roots: Readonly<Record<string, string>>;
  /** The approver's name in the policy; absent for the gate's own approval. */
  readonly approver?: string;
}

/** The bytes an approval signs; the roots bind where, so a folder swapped for a link after approval is not the approved one. */
export const approvalMessage = (a: Approved): Uint8Array =>
  new TextEncoder().encode(
    `agent-cli-kit plan approval v2\n${a.checksum}\n${a.policyVersion}\n${a.expiry}\n${canonicalJson(a.roots)}\n${a.approver === undefined ? "" : `approved by ${a.approver}\n`}`,
  );

export function buildPlan(p: {
  tool: string;
  toolVersion: string;
  now: number;
  ttlSeconds: number;
  context: Record<string, unknown>;
  items: readonly ItemInput[];
  failure?: { code: string; message: string };
}): Plan {
  const seen = new Set<string>();
  const items = p.items.map((it): PlanItem => {
    const key = idempotencyKey(p.tool, it.action, p.context, it.params);
    if (seen.has(key)) throw new KitError("INTERNAL", `two plan items make the same change (${it.action})`);
    seen.add(key);
    return {
      id: `it-${key.slice("sha256:".length, "sha256:".length + 12)}`,
      action: it.action,
      reason: boundedReason(it.reason),
      params: it.params,
      idempotency_key: key,
      target_resource_ids: [...new Set(it.preconditions.map((c) => c.target))],
      preconditions: it.preconditions,
      projected_impact: it.projected_impact ?? null,
    };
  });
  const body = {
    plan_format: PLAN_FORMAT,
    tool: p.tool,
    tool_version: p.toolVersion,
    created_at: new Date(p.now).toISOString(),
    expiry: new Date(p.now + p.ttlSeconds * 1000).toISOString(),
    status: p.failure ? ("failed" as const) : ("ready" as const),
    failure: p.failure ?? null,
    context: p.context,
    items,
  };
  return { ...body, checksum: planChecksum(body), policy_version: null, approval_id: null, approval: null };
}

/**
 * Atomic: a reader (the gate, apply) never sees half a plan, and a failed
 * write leaves no temp file. Owner-only: a plan holds, unredacted, the very
 * text its apply will write.
 */
export function writePlanFile(path: string, plan: Plan): void {
  writeAtomic(path, `${JSON.stringify(plan, null, 1)}\n`, 0o600);
}

/** `--plan` is a plan.json path or a run dir holding one. */
export function resolvePlanPath(ref: string, cwd: string): string {
  const path = resolve(cwd, ref);
  const st = statSync(path, { throwIfNoEntry: false });
  if (st?.isDirectory()) {
    const inside = join(path, PLAN_FILE);
    if (!existsSync(inside))
      throw new KitError("MISSING_ARTIFACT", `${ref} holds no ${PLAN_FILE}`, {
        got: ref,
        hint: "run the tool's `plan` command into that run dir first",
      });
    return inside;
  }
  if (!st)
    throw new KitError("NOT_FOUND", `no plan at ${ref}`, {
      got: ref,
      hint: "give --plan the plan.json a `plan` command wrote, or its run dir",
    });
  return path;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** Reads and shape-checks a plan of `tool` (null: of any tool, as the gate judges them all); the checksum is the caller's to check. */
export function readPlanFile(path: string, tool: string | null): Plan {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new KitError("PLAN_INVALID", `${path} is not a readable JSON plan: ${(e as Error).message}`, {
      hint: "plan again",
    });
  }
  const bad = (what: string) =>
    new KitError("PLAN_INVALID", `${path} is not a valid plan: ${what}`, {
      hint: "plan again; never edit a plan by hand",
    });
  if (!isObject(doc)) throw bad("not a JSON object");
  if (doc.plan_format !== PLAN_FORMAT)
    throw bad(`plan_format ${JSON.stringify(doc.plan_format)} (expected ${PLAN_FORMAT})`);
  if (typeof doc.tool !== "string" || (tool !== null && doc.tool !== tool))
    throw bad(`it was made by ${JSON.stringify(doc.tool)}, not ${tool}`);
  for (const k of ["checksum", "created_at", "expiry", "tool_version"])
    if (typeof doc[k] !== "string") throw bad(`${k} is missing`);
  if (doc.status !== "ready" && doc.status !== "failed") throw bad("status is neither ready nor failed");
  if (!isObject(doc.context) || !Array.isArray(doc.items)) throw bad("context or items are missing");
  for (const [i, it] of (doc.items as unknown[]).entries()) {
    const problem = itemProblem(it, i);
    if (problem) throw bad(problem);
  }
  return doc as unknown as Plan;
}

/** What no reader may accept, whether it approves or applies: a plan that failed while planning, or one changed since. */
export function assertIntact(plan: Plan): void {
  if (plan.status === "failed")
    throw new KitError(
      "PLAN_FAILED",
      `this plan failed while planning (${plan.failure?.code}: ${plan.failure?.message}) and can never be approved or applied`,
      { hint: "fix the cause, then plan the change again" },
    );
  if (planChecksum(plan) !== plan.checksum)
    throw new KitError(
      "PLAN_TAMPERED",
      "the plan's contents do not match its checksum: it was changed after planning",
      { got: plan.checksum, hint: "plan again; never edit a plan by hand" },
    );
}

export function assertUnexpired(plan: Plan, now: number): void {
  if (Date.parse(plan.expiry) <= now)
    throw new KitError("PLAN_EXPIRED", `the plan expired at ${plan.expiry}`, {
      got: plan.expiry,
      hint: "plan the change again and have it approved",
    });
}
