/**
 * The standing policy file the gate judges plans by. Its `version` is the
 * `policy_version` an approval is bound to; `apply` reads only that version,
 * to refuse plans approved under a policy that has since changed.
 */
import { readFileSync, realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { KitError } from "../output/index.ts";

export const POLICY_ENV = "AGENT_POLICY_FILE";

export { APPROVER_KEY_ENV } from "../identity/index.ts";

export interface ActionLimits {
  /** Approve without a human when every bound is within the limits below. */
  readonly auto_approve: boolean;
  /** Most bytes the item's parameters may carry (what it can write). */
  readonly max_write_bytes?: number;
  /** Largest live size of the targets it touches (what it can destroy). */
  readonly max_target_bytes?: number;
}

export interface Policy {
  readonly version: string;
  /** The most items one plan may hold and still be auto-approved. */
  readonly max_items: number;
  /** Keyed `tool.action`; an action not listed always needs a human. */
  readonly actions: Readonly<Record<string, ActionLimits>>;
  /**
   * Per tool, the folders (a site, a notes repository) its plans may act on; a
   * relative path is read from the policy file's folder. A tool with no roots
   * here has no plan approved, by review or by a person.
   */
  readonly roots?: Readonly<Record<string, readonly string[]>>;
  /**
   * The people who may approve what the policy does not: each a name and the
   * public half of their Ed25519 key. An approval records the name of the key
   * that signed it, never a name the caller gives; no approvers, no person's
   * approval.
   */
  readonly approvers?: readonly Approver[];
  /**
   * The tools whose plans the gate judges, and how it finds and trusts each
   * one's binary: a path (relative to the policy file's folder) and the
   * sha256 of the binary there, checked before each run; or `fleet: true`,
   * the tool of that name installed beside the gate. A tool not named here
   * has no plan approved (docs/trust.md).
   */
  readonly tools?: Readonly<Record<string, ToolTrust>>;
}

export type ToolTrust = { readonly path: string; readonly sha256: string } | { readonly fleet: true };

export interface Approver {
  readonly name: string;
  /** Ed25519, PEM (SPKI) or base64 SPKI DER. */
  readonly public_key: string;
}

const bad = (path: string, what: string) =>
  new KitError("INVALID_INPUT", `the policy file ${path} is not valid: ${what}`, {
    hint: `fix ${path}: { "version": "1", "max_items": N, "actions": { "tool.action": { "auto_approve": true, … } }, "tools": { "tool": { "path": "…", "sha256": "…" } }, "roots": { "tool": ["folder"] } } (docs/mutations.md)`,
  });

export function readPolicy(path: string): Policy {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw bad(path, (e as Error).message);
  }
  const p = doc as Partial<Policy>;
  if (typeof p !== "object" || p === null) throw bad(path, "not a JSON object");
  if (typeof p.version !== "string" || p.version === "") throw bad(path, "version must be a non-empty string");
  if (!Number.isInteger(p.max_items) || (p.max_items as number) < 0)
    throw bad(path, "max_items must be a whole number");
  if (typeof p.actions !== "object" || p.actions === null) throw bad(path, "actions must be an object");
  for (const [name, a] of Object.entries(p.actions)) {
    if (typeof a?.auto_approve !== "boolean") throw bad(path, `actions.${name}.auto_approve must be true or false`);
    for (const k of ["max_write_bytes", "max_target_bytes"] as const)
      if (a[k] !== undefined && (!Number.isInteger(a[k]) || a[k]! < 0))
        throw bad(path, `actions.${name}.${k} must be a whole number`);
  }
  if (p.roots !== undefined) {
    if (typeof p.roots !== "object" || p.roots === null || Array.isArray(p.roots))
      throw bad(path, 'roots must be an object: { "tool": ["folder", …] }');
    for (const [tool, list] of Object.entries(p.roots))
      if (!Array.isArray(list) || list.some((r) => typeof r !== "string" || r === ""))
        throw bad(path, `roots.${tool} must be a list of folder paths`);
  }
  if (p.approvers !== undefined) {
    if (!Array.isArray(p.approvers))
      throw bad(path, 'approvers must be a list: [{ "name": "…", "public_key": "…" }, …]');
    const names = new Set<string>();
    for (const [i, a] of p.approvers.entries()) {
      if (typeof a?.name !== "string" || !/^\S(.{0,198}\S)?$/.test(a.name))
        throw bad(path, `approvers[${i}].name must be 1 to 200 characters, not starting or ending with a space`);
      if (names.has(a.name)) throw bad(path, `approvers[${i}].name '${a.name}' is given twice`);
      names.add(a.name);
      if (typeof a.public_key !== "string" || a.public_key.trim() === "")
        throw bad(path, `approvers[${i}].public_key must be an Ed25519 public key (PEM or base64 DER)`);
    }
  }
  if (p.tools !== undefined) checkTools(path, p.tools);
  return p as Policy;
}

const TOOL_NAME = /^[a-z][a-z0-9-]*$/;

function checkTools(path: string, tools: unknown): void {
  if (typeof tools !== "object" || tools === null || Array.isArray(tools))
    throw bad(path, 'tools must be an object: { "tool": { "path": "…", "sha256": "…" } }');
  for (const [name, t] of Object.entries(tools) as [string, Record<string, unknown>][]) {
    if (!TOOL_NAME.test(name)) throw bad(path, `tools.${name}: a tool's name is kebab-case`);
    const keys = Object.keys(t ?? {})
      .filter((k) => k !== "//") // a comment, where JSON has none
      .sort()
      .join(",");
    if (keys === "fleet" && t.fleet === true) continue;
    if (keys !== "path,sha256" || typeof t.path !== "string" || t.path === "")
      throw bad(path, `tools.${name} must be { "path": "…", "sha256": "…" } or { "fleet": true }`);
    if (typeof t.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(t.sha256))
      throw bad(path, `tools.${name}.sha256 must be 64 lower-case hex digits (sha256sum of the binary)`);
  }
}

/** A path's real path (links resolved), or the path itself when it does not exist. */
export const realOf = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
};

export const within = (root: string, path: string): boolean =>
  path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);

/** The real paths of the folders the policy at `policyPath` lets `tool`'s plans act on. */
export const policyRoots = (policy: Policy, policyPath: string, tool: string): string[] =>
  (policy.roots?.[tool] ?? []).map((r) => realOf(resolve(dirname(policyPath), r)));
