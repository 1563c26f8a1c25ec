/**
 * The doors an agent calls through (MCP, a job step) start each command as a
 * child process. They say which door in its environment, and never pass on a
 * person's approver key: a command declared a person's act refuses to run
 * behind one (person.ts).
 */
import { APPROVER_KEY_ENV } from "./env.ts";
import { DOOR_ENV, type Door } from "./person.ts";

/** The environment of a child an agent's door starts: its own, less a person's key, marked with the door. */
export function doorEnv(env: Readonly<Record<string, string | undefined>>, door: Door): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && k !== APPROVER_KEY_ENV) out[k] = v;
  out[DOOR_ENV] = door;
  return out;
}
