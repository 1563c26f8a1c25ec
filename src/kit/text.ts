/**
 * Human text for a terminal (SPEC: tables for lists, colour unless
 * NO_COLOR). Not a contract: machines read the envelope. Loaded only when
 * stdout is a terminal.
 */
import type { Envelope } from "./envelope.ts";

export interface TextStyle {
  readonly colour: boolean;
  readonly width: number;
}

const isScalar = (v: unknown): boolean => v === null || ["string", "number", "boolean"].includes(typeof v);
const scalarText = (v: unknown): string => (v === null || v === undefined ? "-" : typeof v === "string" ? v : JSON.stringify(v));

function clip(s: string, width: number): string {
  const flat = s.replace(/\s+/g, " ");
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1))}…` : flat;
}

export function renderTable(rows: readonly Record<string, unknown>[], style: TextStyle): string {
  const columns = Object.keys(rows[0] ?? {}).filter((k) => rows.every((r) => isScalar(r[k]) || r[k] === undefined));
  if (columns.length === 0) return rows.map((r) => renderValue(r, style, 0)).join("\n\n");
  const cells = rows.map((r) => columns.map((c) => scalarText(r[c])));
  const budget = Math.max(8, Math.floor((style.width - 2 * columns.length) / columns.length));
  const widths = columns.map((c, i) => Math.min(Math.max(c.length, ...cells.map((row) => row[i]!.length)), budget));
  const line = (values: readonly string[]) => values.map((v, i) => clip(v, widths[i]!).padEnd(widths[i]!)).join("  ").trimEnd();
  const head = line(columns.map((c) => c.toUpperCase()));
  return [style.colour ? `\u001b[1m${head}\u001b[0m` : head, ...cells.map(line)].join("\n");
}

export function renderValue(value: unknown, style: TextStyle, indent = 0): string {
  const pad = " ".repeat(indent);
  if (isScalar(value)) return `${pad}${scalarText(value)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `${pad}(none)`;
    if (value.every(isScalar)) return `${pad}${value.map(scalarText).join(", ")}`;
    if (value.every((v) => v && typeof v === "object" && !Array.isArray(v)))
      return renderTable(value as Record<string, unknown>[], style).split("\n").map((l) => pad + l).join("\n");
    return value.map((v) => `${pad}- ${renderValue(v, style, indent + 2).trimStart()}`).join("\n");
  }
  return Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => {
      const key = style.colour ? `\u001b[1m${k}\u001b[0m` : k;
      return isScalar(v) || (Array.isArray(v) && v.every(isScalar))
        ? `${pad}${key}: ${renderValue(v, style).trimStart()}`
        : `${pad}${key}:\n${renderValue(v, style, indent + 2)}`;
    })
    .join("\n");
}

/** What a person sees: the data on stdout; an error, hints and truncation on stderr. */
export function renderText(env: Envelope, style: TextStyle): { stdout: string; stderr: string } {
  const red = (s: string) => (style.colour ? `\u001b[31m${s}\u001b[0m` : s);
  const dim = (s: string) => (style.colour ? `\u001b[2m${s}\u001b[0m` : s);
  if (!env.ok && env.error) {
    const e = env.error!;
    const lines = [`${red("error")} ${e.code}: ${e.message}`];
    if (e.hint) lines.push(`hint: ${e.hint}`);
    return { stdout: "", stderr: `${lines.join("\n")}\n` };
  }
  const stderr = env.meta.truncation_hint ? `${dim(`… ${env.meta.truncation_hint}`)}\n` : "";
  return { stdout: `${renderValue(env.data, style)}\n`, stderr };
}
