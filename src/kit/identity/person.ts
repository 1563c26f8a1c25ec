/**
 * A person's act (`person: true`, an approval) is done by a person, with
 * their own key. The doors an agent calls through (MCP, a job step) start
 * each command as a child process and say which door in its environment
 * (doors.ts), so such a command refuses to run behind one, whatever
 * else the environment holds.
 */
import { KitError } from "../output/index.ts";

export const DOOR_ENV = "AGENT_DOOR";
export type Door = "mcp" | "harness";

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
