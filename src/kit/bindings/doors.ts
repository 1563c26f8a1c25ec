/**
 * The doors an agent calls through (MCP, a job step) start each command as a
 * child process. They say which door in its environment, and never pass on a
 * person's approver key: a command declared a person's act (`person: true`)
 * refuses to run behind one, whatever else the environment holds.
 */
import { KitError } from "../output/errors.ts";
// The key's name from identity (loaded at every start), not the policy module: no node:fs or node:path on the start path.
import { APPROVER_KEY_ENV } from "../identity/env.ts";

export const DOOR_ENV = "AGENT_DOOR";
export type Door = "mcp" | "harness";

/** The environment of a child an agent's door starts: its own, less a person's key, marked with the door. */
export function doorEnv(env: Readonly<Record<string, string | undefined>>, door: Door): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && k !== APPROVER_KEY_ENV) out[k] = v;
  out[DOOR_ENV] = door;
  return out;
}

/** The refusal of a person's act started behind an agent's door (POLICY_DENIED, exit 5). */
export function personOnly(tool: string, command: string, door: string): KitError {
  return new KitError(
    "POLICY_DENIED",
    `\`${tool} ${command}\` is a person's act, and this run was started through ${door === "harness" ? "a job step" : `the ${door.slice(0, 40)} door`}`,
    {
      hint: `a person runs \`${tool} ${command}\` at the command line, with their own key`,
    },
  );
}
