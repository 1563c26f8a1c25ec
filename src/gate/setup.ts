/**
 * `gate init`, a person's set-up act: a gate key pair, an approver key pair
 * and a complete standing policy naming the tools given, each found and
 * trusted as the gate will find it (a path and its sha256, or the fleet's
 * tool beside the gate), its actions and root read from its own declaration.
 */
import { createHash, generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { shellWord } from "../kit/introspection/shell.ts";
import { KitError } from "../kit/output/errors.ts";
import { fleetTool, fleetTools } from "../kit/runtime/multicall.ts";
import { type Declaration, declarationOf } from "./readback.ts";
import type { GovernedTool } from "./scope.ts";

/** The files `gate init` writes, by their names in the folder. */
export const SETUP_FILES = {
  gateKey: "gate.key",
  gatePublic: "gate.pub",
  approverKey: "approver.key",
  policy: "policy.json",
} as const;

/** A tool as `--tool` names it: a path to its binary (it holds a `/`), or a fleet tool's name. */
export interface ToolSpec {
  readonly given: string;
  readonly tool: GovernedTool;
  readonly entry: Record<string, unknown>;
}

const sha256Of = (path: string): string => createHash("sha256").update(readFileSync(path)).digest("hex");

/** The tool `given` names, and its entry in the policy at `dir`: a path relative to that folder and its hash, or `fleet`. */
export function toolSpec(given: string, cwd: string, dir: string): ToolSpec {
  if (!given.includes("/")) {
    if (!fleetTools().includes(given))
      throw new KitError("NOT_FOUND", `'${given.slice(0, 80)}' is not a fleet tool installed beside the gate`, {
        allowed: fleetTools(),
        got: given,
        hint: "name an outside tool by the path to its binary, e.g. --tool ./dist/weather",
      });
    return { given, tool: { name: given, argv: fleetTool(given), verify() {} }, entry: { fleet: true } };
  }
  const path = resolve(cwd, given);
  if (!existsSync(path))
    throw new KitError("NOT_FOUND", `no tool binary at ${path}`, {
      got: given,
      hint: "build the tool first (npx agent-cli-kit build), then name dist/<tool>",
    });
  const sha256 = sha256Of(path);
  const rel = relative(dir, path);
  return {
    given,
    tool: { name: given, argv: [path], verify() {} },
    entry: {
      "//": "the binary's sha256 (sha256sum PATH): rebuilt, the tool is refused until a person updates it here",
      path: isAbsolute(rel) ? path : rel,
      sha256,
    },
  };
}

/** `--root TOOL=FOLDER` words, by tool. */
export function rootsGiven(words: readonly string[], cwd: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const w of words) {
    const at = w.indexOf("=");
    if (at < 1 || at === w.length - 1)
      throw new KitError("INVALID_VALUE", `--root ${w.slice(0, 80)} is not TOOL=FOLDER`, {
        got: w,
        hint: "e.g. --root seo=./site",
      });
    out.set(w.slice(0, at), resolve(cwd, w.slice(at + 1)));
  }
  return out;
}

/** A key pair: the private half as PEM (PKCS#8), the public half as base64 SPKI DER (what policies and apply read). */
export function keyPair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privateKey: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    publicKey: publicKey.export({ format: "der", type: "spki" }).toString("base64"),
  };
}

export interface Governed {
  readonly name: string;
  readonly entry: Record<string, unknown>;
  readonly declared: Declaration;
  readonly root: string | null;
}

/** Each tool's declaration and root, read from the tool itself; a tool with no writes, or a root not given, is refused. */
export async function governedTools(
  specs: readonly ToolSpec[],
  roots: ReadonlyMap<string, string>,
  env: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
): Promise<Governed[]> {
  const out: Governed[] = [];
  for (const s of specs) {
    const declared = await declarationOf(s.tool, env, signal).catch(() => {
      throw new KitError("INVALID_INPUT", `${s.given} declares no writes for a gate to judge (no target list)`, {
        got: s.given,
        hint: "name a tool built on the kit whose commands make plans (Mutations), e.g. --tool ./dist/weather",
      });
    });
    const name = declared.tool;
    const root = roots.get(name) ?? null;
    if (declared.root !== null && root === null)
      throw new KitError("MISSING_FLAG", `${name}'s plans act on a folder (context.${declared.root}): say which`, {
        hint: `add --root ${name}=FOLDER: the folder its plans may act on`,
      });
    out.push({ name, entry: s.entry, declared, root });
  }
  return out;
}

/**
 * The policy, complete and commented where JSON allows (`//` keys): every
 * action auto-approved within modest limits. Paths are relative to the
 * policy's folder, so the folder and what it names move together.
 */
export function policyFor(dir: string, tools: readonly Governed[], approverPublic: string, approver: string) {
  const rel = (p: string) => {
    const r = relative(dir, p);
    return r === "" ? "." : isAbsolute(r) ? p : r;
  };
  return {
    "//": [
      "The standing policy the gate judges plans by (docs/mutations.md). Written by gate init; edit it as a person.",
      "actions: auto_approve within the limits, else a person named in approvers decides (gate approve).",
      "tools: the binary the gate runs for each tool, and its sha256; roots: where each tool's plans may act.",
    ],
    version: "1",
    max_items: 100,
    actions: Object.fromEntries(
      tools.flatMap((t) =>
        t.declared.actions.map((a) => [`${t.name}.${a.name}`, { auto_approve: true, max_write_bytes: 100_000 }]),
      ),
    ),
    tools: Object.fromEntries(tools.map((t) => [t.name, t.entry])),
    roots: Object.fromEntries(tools.filter((t) => t.root !== null).map((t) => [t.name, [rel(t.root!)]])),
    approvers: [{ name: approver, public_key: approverPublic }],
  };
}

/** Writes the four files (keys owner-only); refuses a folder that already holds any of them: a key is never overwritten. */
export function writeSetup(dir: string, files: Record<keyof typeof SETUP_FILES, string>): void {
  const taken = Object.values(SETUP_FILES).filter((f) => existsSync(join(dir, f)));
  if (taken.length)
    throw new KitError("CONFLICT", `${dir} already holds ${taken.join(", ")}`, {
      hint: "give --dir a new folder: gate init never writes over keys or a policy",
    });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [k, name] of Object.entries(SETUP_FILES))
    writeFileSync(join(dir, name), files[k as keyof typeof SETUP_FILES], {
      mode: name.endsWith(".key") ? 0o600 : 0o644,
      flag: "wx",
    });
}

/** The shell lines that put the setup to use: each reads a key from its file, so no key is printed. */
export const envLines = (dir: string): string[] => {
  const at = (f: string) => shellWord(join(dir, f));
  return [
    `export AGENT_GATE_PRIVATE_KEY="$(cat ${at(SETUP_FILES.gateKey)})"`,
    `export AGENT_GATE_PUBLIC_KEY="$(cat ${at(SETUP_FILES.gatePublic)})"`,
    `export AGENT_POLICY_FILE=${at(SETUP_FILES.policy)}`,
    `export AGENT_APPROVER_KEY="$(cat ${at(SETUP_FILES.approverKey)})"`,
  ];
};
