/**
 * How a command's progress crosses a process boundary: a door that starts a
 * command as its child (the MCP server) sets PROGRESS_ENV to `lines`, and the
 * child writes each progress report as one stderr line: this prefix, then
 * `{message, label, done, total?}` as JSON. The door keeps those lines and
 * passes every other stderr line on.
 */
export const PROGRESS_ENV = "AGENT_PROGRESS";
export const PROGRESS_PREFIX = "agent-kit-progress ";

export interface ProgressReport {
  readonly message: string;
  readonly label: string;
  readonly done: number;
  readonly total?: number;
}

/** A stderr line's progress report, or null for any other line. */
export function progressOf(line: string): ProgressReport | null {
  if (!line.startsWith(PROGRESS_PREFIX)) return null;
  try {
    const p = JSON.parse(line.slice(PROGRESS_PREFIX.length)) as ProgressReport;
    return typeof p.message === "string" && typeof p.done === "number" ? p : null;
  } catch {
    return null;
  }
}
