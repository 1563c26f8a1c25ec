/**
 * Plausible argv for a command, read off its input schema: enough to get
 * past required-flag checks so a probe reaches the rule it is testing.
 */
import type { CommandDoc } from "../base/schemas.ts";

type Prop = { type?: string; enum?: string[]; format?: string; minimum?: number; maximum?: number; items?: Prop };

export function plausible(p: Prop): string | null {
  if (p.enum?.length) return p.enum[0]!;
  switch (p.type) {
    case "integer":
    case "number":
      return String(p.minimum ?? (p.maximum !== undefined && p.maximum < 1 ? p.maximum : 1));
    case "boolean":
      return null;
    case "array":
      return plausible(p.items ?? { type: "string" });
    default:
      if (p.format === "uri" || p.format === "url") return "https://example.invalid/";
      if (p.format === "email") return "someone@example.invalid";
      return "x";
  }
}

export const props = (c: CommandDoc): Record<string, Prop> =>
  (c.input_schema?.properties ?? {}) as Record<string, Prop>;

/** A flag's own description as a JSON Schema fragment, where the document has no input_schema. */
const fromFlag = (flag: CommandDoc["flags"][number]): Prop => ({
  type: flag.type === "enum" || flag.type === null ? "string" : flag.type,
  ...(flag.enum ? { enum: flag.enum } : {}),
  ...(flag.minimum !== undefined ? { minimum: flag.minimum } : {}),
  ...(flag.maximum !== undefined ? { maximum: flag.maximum } : {}),
});

/** `--flag value` for every required flag except those named. */
export function requiredArgv(c: CommandDoc, except: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const flag of c.flags) {
    if (!flag.required || except.includes(flag.name)) continue;
    const value = flag.taught ?? plausible(props(c)[flag.name] ?? fromFlag(flag));
    out.push(value === null ? `--${flag.name}` : `--${flag.name}=${value}`);
  }
  return out;
}

export const words = (c: CommandDoc): string[] => c.name.split(" ");

/** A path in the command's result, for --fields probes: its first top-level property. */
export function firstField(c: CommandDoc): string | null {
  const p = (c.output_schema?.properties ?? {}) as Record<string, unknown>;
  return Object.keys(p)[0] ?? null;
}
