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
const scalarText = (v: unknown): string =>
  v === null || v === undefined ? "-" : typeof v === "string" ? v : JSON.stringify(v);

function clip(s: string, width: number): string {
  const flat = s.replace(/\s+/g, " ");
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1))}…` : flat;
}

/** Lines of at most `width` characters, broken between words (a word longer than a line is split). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(" ")) {
    let w = word;
    while (w.length > width) {
      if (current) lines.push(current);
      lines.push(w.slice(0, width));
      w = w.slice(width);
      current = "";
    }
    if (!current) current = w;
    else if (current.length + 1 + w.length <= width) current += ` ${w}`;
    else {
      lines.push(current);
      current = w;
    }
  }
  if (current || lines.length === 0) lines.push(current);
  return lines;
}

/** Columns a person reads a row by: they get their room first. */
const KEY_COLUMN = /^(id|url|final_url|path|file|message|title|name)$/;

/** `https://one.host/a/b` → `/a/b` when every URL in the column is on that one host: the host says nothing. */
function siteRelative(values: readonly string[]): string[] {
  const origins = new Set(values.map((v) => /^https?:\/\/[^/]+/.exec(v)?.[0] ?? null));
  const [origin] = origins;
  if (origins.size !== 1 || !origin) return [...values];
  return values.map((v) => v.slice(origin.length) || "/");
}

/**
 * Each column its natural width when the terminal has room; otherwise every
 * column first gets a little, then the key columns (id, URL, message, …) get
 * what they need, then the rest, and only what still does not fit is cut.
 */
export function columnWidths(columns: readonly string[], natural: readonly number[], width: number): number[] {
  const room = width - 2 * (columns.length - 1);
  if (natural.reduce((a, b) => a + b, 0) <= room) return [...natural];
  const widths = natural.map((n) => Math.min(n, 6));
  let left = room - widths.reduce((a, b) => a + b, 0);
  const order = columns
    .map((_c, i) => i)
    .sort(
      (a, b) =>
        Number(KEY_COLUMN.test(columns[b]!)) - Number(KEY_COLUMN.test(columns[a]!)) || natural[a]! - natural[b]!,
    );
  for (const i of order) {
    const add = Math.max(0, Math.min(natural[i]! - widths[i]!, left));
    widths[i]! += add;
    left -= add;
  }
  return widths;
}

export function renderTable(rows: readonly Record<string, unknown>[], style: TextStyle): string {
  const columns = Object.keys(rows[0] ?? {}).filter((k) => rows.every((r) => isScalar(r[k]) || r[k] === undefined));
  if (columns.length === 0) return rows.map((r) => renderValue(r, style, 0)).join("\n\n");
  const byColumn = columns.map((c) => siteRelative(rows.map((r) => scalarText(r[c]).replace(/\s+/g, " "))));
  const cells = rows.map((_, r) => columns.map((_c, i) => byColumn[i]![r]!));
  const natural = columns.map((c, i) => Math.max(c.length, ...byColumn[i]!.map((v) => v.length)));
  const widths = columnWidths(columns, natural, style.width);
  const last = columns.length - 1;
  const offset = widths.slice(0, last).reduce((a, w) => a + w + 2, 0);
  // The last column (a message, usually) wraps onto continuation lines rather than losing its end.
  const line = (values: readonly string[]) => {
    const [first = "", ...rest] = wrap(values[last]!, Math.max(1, widths[last]!));
    const head = values
      .map((v, i) => (i === last ? first : clip(v, widths[i]!).padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
    return [head, ...rest.map((chunk) => `${" ".repeat(offset)}${chunk}`)].join("\n");
  };
  const head = columns
    .map((c, i) => (i === last ? c.toUpperCase() : clip(c.toUpperCase(), widths[i]!).padEnd(widths[i]!)))
    .join("  ")
    .trimEnd();
  return [style.colour ? `\u001b[1m${head}\u001b[0m` : head, ...cells.map(line)].join("\n");
}

export function renderValue(value: unknown, style: TextStyle, indent = 0): string {
  const pad = " ".repeat(indent);
  if (isScalar(value)) return `${pad}${scalarText(value)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `${pad}(none)`;
    if (value.every(isScalar)) return `${pad}${value.map(scalarText).join(", ")}`;
    if (value.every((v) => v && typeof v === "object" && !Array.isArray(v)))
      return renderTable(value as Record<string, unknown>[], { ...style, width: style.width - indent })
        .split("\n")
        .map((l) => pad + l)
        .join("\n");
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
