/**
 * A plan never carries a secret. plan.json travels (review, apply, history,
 * MCP answers, the ledger's rows), and its items are what apply executes:
 * masking a value there would change what is applied, so a plan whose
 * items would carry the value of a secret the planning process knows (any
 * form the redactor knows it by) is refused before it is written,
 * INVALID_INPUT naming the field, never quoting it.
 */
import { KitError } from "../output/index.ts";

/** The path of the first string in `value` that holds a known secret, or null. */
function firstHolding(value: unknown, path: string, holds: (text: string) => boolean): string | null {
  if (typeof value === "string") return holds(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstHolding(value[i], `${path}[${i}]`, holds);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      if (holds(k)) return `${path} (a key)`;
      const found = firstHolding(v, `${path}.${k}`, holds);
      if (found) return found;
    }
  return null;
}

export function refuseSecrets(
  made: { context: Record<string, unknown>; items: readonly { action: string; reason: string; params: unknown }[] },
  holds: (text: string) => boolean,
): void {
  const field =
    firstHolding(made.context, "context", holds) ??
    made.items.reduce<string | null>(
      (found, it, i) =>
        found ??
        firstHolding(it.reason, `items[${i}].reason`, holds) ??
        firstHolding(it.params, `items[${i}].params`, holds),
      null,
    );
  if (field)
    throw new KitError("INVALID_INPUT", `the plan's ${field} holds the value of a secret: a plan never carries one`, {
      detail: { field },
      hint: "remove the secret from what the write takes (a flag, a file, a page): plan.json travels to the gate, the ledger and history",
    });
}
