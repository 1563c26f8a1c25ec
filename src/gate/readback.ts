/**
 * The live read-back through the tool itself: `<tool> target list --plan P`,
 * every page. The gate's private key never reaches the tool's environment.
 */
import { KitError } from "../kit/errors.ts";
import type { LiveTarget } from "./judge.ts";

export async function readBack(toolBinary: string, planPath: string, env: Readonly<Record<string, string | undefined>>, withhold: readonly string[], signal: AbortSignal): Promise<Map<string, LiveTarget>> {
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !withhold.includes(k)) childEnv[k] = v;
  const live = new Map<string, LiveTarget>();
  let cursor: string | null = null;
  do {
    const argv = [toolBinary, "target", "list", "--plan", planPath, "--json", "--no-input", "--limit", "1000", ...(cursor ? ["--cursor", cursor] : [])];
    let proc;
    try {
      proc = Bun.spawn(argv, { env: childEnv, stdin: "ignore", stdout: "pipe", stderr: "pipe", signal });
    } catch (e) {
      throw new KitError("NOT_FOUND", `the tool binary ${toolBinary} cannot be run: ${(e as Error).message}`, { got: toolBinary, hint: "pass --tool with the path of the tool that made the plan" });
    }
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    let env: { ok?: boolean; data?: { items: LiveTarget[] }; error?: { code: string; message: string }; meta?: { pagination?: { next_cursor?: string | null } } };
    try {
      env = JSON.parse(out);
    } catch {
      throw new KitError("UPSTREAM_ERROR", `${toolBinary} target list did not print an envelope (exit ${code})`, { hint: "run it by hand to see why" });
    }
    if (!env.ok || !env.data) throw new KitError("UPSTREAM_ERROR", `the read-back failed: ${env.error?.code}: ${env.error?.message}`, { detail: { tool: toolBinary, error: env.error } });
    for (const t of env.data.items) live.set(t.id, t);
    cursor = env.meta?.pagination?.next_cursor ?? null;
  } while (cursor);
  return live;
}
