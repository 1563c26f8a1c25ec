/**
 * The live read-back through the tool itself: `<tool> target list --plan P`,
 * every page, in an environment holding only what that command declares it
 * reads (never a write credential, never the ledger, never the gate's key).
 * A tool that refuses the plan's targets (a path out of its root, a link out
 * of it) or an item's edit (more than its action may change) makes the plan
 * invalid, not the read-back "upstream".
 */
import { LEDGER_ENV } from "../kit/mutations/ledger/open.ts";
import { KitError } from "../kit/output/errors.ts";
import type { LiveTarget } from "./judge.ts";
import { readBackEnv } from "./scope.ts";

interface Envelope {
  ok?: boolean;
  data?: { items: LiveTarget[] };
  error?: { code: string; message: string; retryable?: boolean };
  meta?: { pagination?: { next_cursor?: string | null } };
}

async function runTool(
  argv: string[],
  env: Record<string, string>,
  signal: AbortSignal,
): Promise<{ out: string; code: number }> {
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe", signal });
  } catch (e) {
    throw new KitError("NOT_FOUND", `the tool ${argv[0]} cannot be run: ${(e as Error).message}`, {
      got: argv[0],
      hint: "install the fleet's tools beside the gate",
    });
  }
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { out, code };
}

/** The variables `target list` declares, from the tool's own describe document. */
async function declaredEnv(
  tool: readonly string[],
  env: Record<string, string>,
  signal: AbortSignal,
): Promise<{ name: string; scope: string }[]> {
  const { out } = await runTool([...tool, "target", "list", "--describe"], env, signal);
  try {
    return (JSON.parse(out).commands?.[0]?.env ?? []) as { name: string; scope: string }[];
  } catch {
    throw new KitError(
      "UPSTREAM_ERROR",
      `${tool.join(" ")} target list --describe did not print its describe document`,
      { hint: "run it by hand to see why" },
    );
  }
}

export async function readBack(
  tool: readonly string[],
  planPath: string,
  env: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
): Promise<Map<string, LiveTarget>> {
  const childEnv = readBackEnv(env, await declaredEnv(tool, readBackEnv(env, [], LEDGER_ENV), signal), LEDGER_ENV);
  const live = new Map<string, LiveTarget>();
  let cursor: string | null = null;
  do {
    const argv = [
      ...tool,
      "target",
      "list",
      "--plan",
      planPath,
      "--json",
      "--no-input",
      "--limit",
      "1000",
      ...(cursor ? ["--cursor", cursor] : []),
    ];
    const { out, code } = await runTool(argv, childEnv, signal);
    let answer: Envelope;
    try {
      answer = JSON.parse(out);
    } catch {
      throw new KitError("UPSTREAM_ERROR", `${tool.join(" ")} target list did not print an envelope (exit ${code})`, {
        hint: "run it by hand to see why",
      });
    }
    if (!answer.ok || !answer.data) {
      const err = answer.error;
      if (err?.retryable)
        throw new KitError("UPSTREAM_ERROR", `the read-back failed: ${err.code}: ${err.message}`, {
          detail: { tool: tool.join(" "), error: err },
        });
      throw new KitError("PLAN_INVALID", `the tool refuses the plan: ${err?.code}: ${err?.message}`, {
        detail: { tool: tool.join(" "), error: err },
        hint: "plan again with the tool; a plan is never approved for targets or edits its tool refuses",
      });
    }
    for (const t of answer.data.items) live.set(t.id, t);
    cursor = answer.meta?.pagination?.next_cursor ?? null;
  } while (cursor);
  return live;
}
