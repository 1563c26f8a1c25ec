/**
 * An approval for a plan the tool made itself (contract §8: plan → gate →
 * apply), so verify can run the tool's own write path: a gate (found as
 * gateOf says), a scratch Ed25519 key of verify's own and a scratch standing
 * policy that governs this tool alone (its binary by path and sha256),
 * auto-approves the plan's actions and lets a plan act only inside verify's
 * workspace. A plan without a checksum asks no approval (the tool says what
 * its apply needs); one the gate refuses is reported with the gate's answer.
 */
import { createHash, generateKeyPairSync } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Subject } from "../base/subject.ts";
import type { Workspace } from "./effects.ts";

export interface PlanFile {
  readonly path: string;
  readonly doc: Record<string, unknown>;
}

/** The plan an apply's --plan names (plan.json, or a run dir holding one), read; null when there is none. */
export function planAt(ref: string, cwd: string): PlanFile | null {
  let path = resolve(cwd, ref);
  if (existsSync(path) && statSync(path).isDirectory()) path = join(path, "plan.json");
  try {
    const doc = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return typeof doc === "object" && doc !== null && !Array.isArray(doc)
      ? { path, doc: doc as Record<string, unknown> }
      : null;
  } catch {
    return null;
  }
}

/** The value an argv gives a flag (`--plan X` or `--plan=X`), or null. */
export function flagValue(argv: readonly string[], flag: string): string | null {
  const i = argv.findIndex((a) => a === `--${flag}` || a.startsWith(`--${flag}=`));
  if (i === -1) return null;
  return argv[i]!.includes("=") ? argv[i]!.slice(flag.length + 3) : (argv[i + 1] ?? null);
}

/**
 * The gate verify asks: --gate PATH; else a `gate` beside the tool's binary
 * (a dist/ folder, an image's bin/); else beside verify's own binary (dist/verify,
 * the fleet's multicall image); else on PATH.
 */
export function gateOf(s: Subject): string | null {
  if (s.gate) return s.gate;
  const own = basename(process.execPath) === "bun" ? [] : [join(dirname(process.execPath), "gate")];
  for (const beside of [join(dirname(s.sandbox.binary), "gate"), ...own]) if (existsSync(beside)) return beside;
  return Bun.which("gate");
}

/** One scratch key pair per verification: the gate signs with the private one, the tool's apply checks with the public. */
const keys = new WeakMap<Subject, { privateKey: string; publicKey: string }>();
function keysOf(s: Subject) {
  let k = keys.get(s);
  if (!k) {
    const pair = generateKeyPairSync("ed25519");
    k = {
      privateKey: pair.privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
      publicKey: pair.publicKey.export({ format: "der", type: "spki" }).toString("base64"),
    };
    keys.set(s, k);
  }
  return k;
}

/** The tool binary's sha256, read once per verification (the policy names the binary by it). */
const hashes = new WeakMap<Subject, string>();
const sha256Of = (s: Subject): string => {
  let h = hashes.get(s);
  if (!h) hashes.set(s, (h = createHash("sha256").update(readFileSync(s.sandbox.binary)).digest("hex")));
  return h;
};

/** verify's scratch policy (the gate's format, docs/mutations.md): this tool, this plan's actions, this workspace. */
function writePolicy(s: Subject, w: Workspace, plan: PlanFile): string {
  const tool = String(plan.doc.tool);
  const items = Array.isArray(plan.doc.items) ? (plan.doc.items as { action?: unknown }[]) : [];
  const actions = Object.fromEntries(
    [...new Set(items.map((i) => String(i.action)))].map((a) => [`${tool}.${a}`, { auto_approve: true }]),
  );
  const policy = {
    "//": "verify's scratch policy: it governs the tool under test alone, within verify's own workspace",
    version: "verify-scratch-1",
    max_items: Math.max(1, items.length),
    actions,
    tools: {
      [tool]: {
        path: s.sandbox.binary,
        sha256: sha256Of(s),
      },
    },
    roots: { [tool]: [w.root] },
  };
  const path = join(w.root, "verify-policy.json");
  writeFileSync(path, JSON.stringify(policy, null, 2));
  return path;
}

const GATE_TIMEOUT_MS = 60_000;

/**
 * What the tool's apply needs (env), and whether a gate approved; without a
 * gate, the apply runs as the tool's own policy allows, and `missing` says
 * what verify lacked should it be refused.
 */
export type Approval =
  | { readonly env: Record<string, string>; readonly gated: boolean; readonly missing?: string }
  | { readonly why: string };

/** Approves the plan an apply's --plan names, or says why verify could not; the env is what the tool's apply then needs. */
export async function approve(s: Subject, w: Workspace, planRef: string): Promise<Approval> {
  const plan = planAt(planRef, w.cwd);
  if (!plan) return { why: `the apply example's --plan ${planRef} names no plan.json the plan step wrote` };
  // contract §8: an approvable plan carries a checksum; without one the tool asks no gate's approval.
  if (typeof plan.doc.checksum !== "string" || typeof plan.doc.tool !== "string") return { env: {}, gated: false };
  const gate = gateOf(s);
  if (!gate)
    return {
      env: {},
      gated: false,
      missing: "verify found no gate to approve its plan (pass --gate PATH, or put `gate` beside the tool or on PATH)",
    };
  const policy = writePolicy(s, w, plan);
  const k = keysOf(s);
  const r = await s.sandbox.run({
    label: `gate review of ${basename(dirname(plan.path))}/plan.json`,
    program: gate,
    argv: ["review", "--plan", plan.path, "--json", "--no-input"],
    cwd: w.cwd,
    env: { ...w.env, AGENT_POLICY_FILE: policy, AGENT_GATE_PRIVATE_KEY: k.privateKey },
    // The gate reads the tool's binary whole (its sha256) and runs its read-back: slower than one run of the tool.
    timeoutMs: Math.max(s.sandbox.timeoutMs, GATE_TIMEOUT_MS),
  });
  let answer: { ok?: boolean; error?: { code?: string; message?: string } } | null = null;
  try {
    answer = JSON.parse(r.stdout);
  } catch {
    // not an envelope: said below
  }
  if (!answer?.ok)
    return {
      why: `the gate (${gate}) did not approve the plan under verify's scratch policy: ${answer?.error ? `${answer.error.code}: ${answer.error.message}` : `exit ${r.exit}`}`,
    };
  return { env: { AGENT_POLICY_FILE: policy, AGENT_GATE_PUBLIC_KEY: k.publicKey }, gated: true };
}
