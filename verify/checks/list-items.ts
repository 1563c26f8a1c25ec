/** Reading a list off an envelope and a command's declaration (contract §6). */
import type { Envelope } from "../base/schemas.ts";

/** The flags `--name value` / `--name=value` removed from argv. */
export const without = (argv: readonly string[], names: readonly string[]): string[] => {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.startsWith("--") ? a.slice(2).split("=")[0]! : null;
    if (name && names.includes(name)) {
      if (!a.includes("=") && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) i++;
      continue;
    }
    out.push(a);
  }
  return out;
};

export const isObject = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === "object" && !Array.isArray(x);

/** The list in a page: the array whose length pagination.returned gives (`items` first). */
export const itemsOf = (env: Envelope): unknown[] | null => {
  if (!isObject(env.data)) return null;
  const returned = env.meta.pagination?.returned;
  const arrays = Object.entries(env.data).filter(([, val]) => Array.isArray(val)) as [string, unknown[]][];
  return (
    (arrays.find(([k, a]) => k === "items" && a.length === returned) ??
      arrays.find(([, a]) => a.length === returned))?.[1] ?? null
  );
};

/** How many items a list holds, by its own account: meta.pagination.total, else what the page returned. */
export const sizeOf = (env: Envelope | null): number | null =>
  env?.ok && env.meta.pagination ? (env.meta.pagination.total ?? env.meta.pagination.returned) : null;

export { declaredDefault } from "../base/bounded.ts";
