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
import type { Plan } from "../kit/mutations/plan.ts";
import { type GovernedTool, readBackEnv } from "./scope.ts";

interface Envelope {
  ok?: boolean;
  data?: { items: LiveTarget[] };
  error?: { code: string; message: string; retryable?: boolean };
  meta?: { pagination?: { next_cursor?: string | null } };
}

async function runTool(
  tool: GovernedTool,
  args: string[],
  env: Record<string, string>,
  signal: AbortSignal,
): Promise<{ out: string; code: number }> {
  tool.verify(); // before each run: the binary is still the one the policy trusts
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    proc = Bun.spawn([...tool.argv, ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe", signal });
  } catch (e) {
    throw new KitError("NOT_FOUND", `the tool ${tool.argv[0]} cannot be run: ${(e as Error).message}`, {
      got: tool.argv[0],
      hint: "the policy's tools entry must name the tool's binary: build it there, or fix the path",
    });
  }
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { out, code };
}

/** What the gate judges a tool's plans by, from the tool's own `target list --describe`. */
export interface Declaration {
  /** The variables `target list` reads. */
  readonly env: { name: string; scope: string }[];
  /** The plan context field naming the folder a plan acts on; null: none. */
  readonly root: string | null;
  /** The actions the tool declares, with what each may change. */
  readonly actions: { name: string; may: string }[];
}

/** The tool's declaration, read with the base environment only; UPSTREAM_ERROR when it prints none the gate can use. */
export async function declarationOf(
  tool: GovernedTool,
  env: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
): Promise<Declaration> {
  const { out } = await runTool(tool, ["target", "list", "--describe"], readBackEnv(env, [], LEDGER_ENV), signal);
  let command: { env?: Declaration["env"]; writes?: Omit<Declaration, "env"> } | undefined;
  try {
    command = JSON.parse(out).commands?.[0];
  } catch {}
  const writes = command?.writes;
  if (!writes || !Array.isArray(writes.actions) || (writes.root !== null && typeof writes.root !== "string"))
    throw new KitError(
      "UPSTREAM_ERROR",
      `${tool.name} target list --describe did not declare the tool's writes (its root field and actions)`,
      { hint: `run \`${tool.argv.join(" ")} target list --describe\` by hand; a tool built on this kit declares them` },
    );
  return { env: command!.env ?? [], root: writes.root, actions: writes.actions };
}

/** Refuses (PLAN_INVALID) a plan item whose action the tool does not declare. */
export function assertDeclaredActions(plan: Plan, d: Declaration): void {
  const known = new Set(d.actions.map((a) => a.name));
  const unknown = plan.items.find((it) => !known.has(it.action));
  if (unknown)
    throw new KitError(
      "PLAN_INVALID",
      `item ${unknown.id} names the action '${String(unknown.action).slice(0, 80)}', which ${plan.tool} does not declare`,
      { allowed: [...known], got: unknown.action, hint: "plan again with the tool" },
    );
}

export async function readBack(
  tool: GovernedTool,
  declared: Declaration,
  planPath: string,
  env: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
): Promise<Map<string, LiveTarget>> {
  const childEnv = readBackEnv(env, declared.env, LEDGER_ENV);
  const live = new Map<string, LiveTarget>();
  let cursor: string | null = null;
  do {
    const argv = [
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
    const { out, code } = await runTool(tool, argv, childEnv, signal);
    let answer: Envelope;
    try {
      answer = JSON.parse(out);
    } catch {
      throw new KitError("UPSTREAM_ERROR", `${tool.name} target list did not print an envelope (exit ${code})`, {
        hint: "run it by hand to see why",
      });
    }
    if (!answer.ok || !answer.data) {
      const err = answer.error;
      if (err?.retryable)
        throw new KitError("UPSTREAM_ERROR", `the read-back failed: ${err.code}: ${err.message}`, {
          detail: { tool: tool.name, error: err },
        });
      throw new KitError("PLAN_INVALID", `the tool refuses the plan: ${err?.code}: ${err?.message}`, {
        detail: { tool: tool.name, error: err },
        hint: "plan again with the tool; a plan is never approved for targets or edits its tool refuses",
      });
    }
    for (const t of answer.data.items) live.set(t.id, t);
    cursor = answer.meta?.pagination?.next_cursor ?? null;
  } while (cursor);
  return live;
}
